import { describe, expect, it } from 'vitest'
import { startIam, startIamExpectingExit } from '../helpers/iam-server'
import { flushedLogs } from '../helpers/logs'

describe('starting the IAM', () => {
  it('stops with exit code 1 and names an unknown key of the config file', async () => {
    const { code, output } = await startIamExpectingExit({ config: { service: { proxy: { trsut: true } } } })
    expect(code).toBe(1)
    expect(output).toContain('service.proxy.trsut: unknown key')
  })

  it('stops with exit code 1 and names a key with a bad value', async () => {
    const { code, output } = await startIamExpectingExit({ config: { codes: { ttlMs: 'seven minutes' } } })
    expect(code).toBe(1)
    expect(output).toContain('codes.ttlMs')
  })

  it('refuses to start in production on dev secrets, without HMAC and on embedded storage', async () => {
    // embedded storage on purpose, also when the suite runs against PostgreSQL + Redis
    const { code, output } = await startIamExpectingExit({
      env: { NODE_ENV: 'production' },
      config: { database: { url: 'memory://' }, storage: { driver: 'memory' } },
    })
    expect(code).toBe(1)
    expect(output).toContain('Refusing to start in production')
    for (const key of ['service.Hmac', 'secrets.codes', 'secrets.links', 'database.url', 'storage.driver']) {
      expect(output).toContain(key)
    }
  })

  it('never writes configured secrets to its log', async () => {
    const sharedSecret = 'hmac-secret-that-must-not-be-logged-0123456789'
    const codes = 'code-secret-that-must-not-be-logged-0123456789'
    const iam = await startIam({
      config: { service: { Hmac: { clientId: 'gateway', sharedSecret } }, secrets: { codes } },
    })
    try {
      await fetch(`${iam.url}/health`)
      await fetch(`${iam.url}/no-such-route`)
      const logs = (await flushedLogs(iam)).join('\n')
      expect(logs).toContain('iam ready')
      expect(logs).not.toContain(sharedSecret)
      expect(logs).not.toContain(codes)
    } finally {
      await iam.stop()
    }
  })
})
