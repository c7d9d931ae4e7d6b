/**
 * The Turnstile-style provider's configuration and its way out (features/bot-challenge/turnstile.ts):
 * keys required with the provider, loopback only on purpose and never in production, and every
 * siteverify call through the outbound guard (shared/outbound.ts).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import type { IamContext } from '../../iam/context'
import { verifyTurnstileToken } from '../../iam/features/bot-challenge/turnstile'
import { ConfigError, parseConfig, productionProblems } from '../../iam/lib/config'

const KEYS = { siteKey: 'site', secretKey: 'secret' }

describe('botChallenge.provider turnstile', () => {
  it('refuses the provider without its site key and secret key, and takes it with both', () => {
    expect(() => parseConfig({ botChallenge: { provider: 'turnstile' } })).toThrow(ConfigError)
    expect(() => parseConfig({ botChallenge: { provider: 'turnstile', turnstile: { siteKey: 'site' } } })).toThrow(/turnstile/)
    const config = parseConfig({ botChallenge: { provider: 'turnstile', turnstile: KEYS } })
    expect(config.botChallenge.turnstile.verifyUrl).toBe('https://challenges.cloudflare.com/turnstile/v0/siteverify')
    expect(config.botChallenge.provider).toBe('turnstile')
    expect(parseConfig({}).botChallenge.provider).toBe('pow')
  })

  it('names allowLoopbackRequests among the production problems', () => {
    const config = parseConfig({ botChallenge: { provider: 'turnstile', turnstile: { ...KEYS, allowLoopbackRequests: true } } })
    expect(productionProblems(config).filter((p) => p.startsWith('botChallenge.'))).toEqual([expect.stringContaining('botChallenge.turnstile.allowLoopbackRequests')])
  })

  it('never reaches a loopback siteverify without allowLoopbackRequests: the guard refuses and the check is unavailable, not passed', async () => {
    let requests = 0
    const server = createServer((_req, res) => {
      requests++
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const verifyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`
      const warnings: unknown[] = []
      const log = { warn: (...args: unknown[]) => warnings.push(args), error: () => undefined } as unknown as IamContext['log']
      const guarded = parseConfig({ botChallenge: { provider: 'turnstile', turnstile: { ...KEYS, verifyUrl } } })
      expect(await verifyTurnstileToken({ config: guarded, log }, 'good-token', '198.51.100.1')).toEqual({ ok: false, code: 'unavailable' })
      expect(requests).toBe(0)
      expect(JSON.stringify(warnings)).not.toContain('secret')
      // the same call with loopback opened on purpose reaches it
      const open = parseConfig({ botChallenge: { provider: 'turnstile', turnstile: { ...KEYS, verifyUrl, allowLoopbackRequests: true } } })
      expect(await verifyTurnstileToken({ config: open, log }, 'good-token', '198.51.100.1')).toEqual({ ok: true })
      expect(requests).toBe(1)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
