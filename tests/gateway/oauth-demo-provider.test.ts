/**
 * scripts/demo-oidc-provider.mjs: what `npm start` runs beside the apps. It prints the gateway's
 * provider entry, serves discovery on DEMO_OIDC_PORT, and refuses NODE_ENV=production.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'
import { freePort } from '../helpers/fake-iam'

const SCRIPT = join(ROOT, 'scripts', 'demo-oidc-provider.mjs')

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  return { child, output: () => output, exited: new Promise<number | null>((resolve) => child.once('exit', resolve)) }
}

describe('demo OIDC provider', () => {
  it('refuses to run with NODE_ENV=production', async () => {
    const demo = run({ NODE_ENV: 'production', DEMO_OIDC_PORT: String(await freePort()) })
    expect(await demo.exited).toBe(1)
    expect(demo.output()).toContain('refuses NODE_ENV=production')
  })

  it('prints the gateway provider entry and serves discovery on DEMO_OIDC_PORT', async () => {
    const port = await freePort()
    const demo = run({ NODE_ENV: 'development', DEMO_OIDC_PORT: String(port), DEMO_GATEWAY_URL: 'http://127.0.0.1:3999' })
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(demo.output())), 20_000)
        demo.child.stdout.on('data', () => {
          const found = demo.output().split('\n').find((l) => l.startsWith('{"demoOidcProvider"'))
          if (found) {
            clearTimeout(timer)
            resolve(found)
          }
        })
      })
      const { demoOidcProvider: entry } = JSON.parse(line) as { demoOidcProvider: Record<string, unknown> }
      expect(entry).toMatchObject({
        kind: 'oidc',
        name: 'demo',
        issuer: `http://127.0.0.1:${port}`,
        redirectUri: 'http://127.0.0.1:3999/oauth/callback/demo',
        supportPKCE: true,
      })
      const discovery = (await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).json()) as Record<string, unknown>
      expect(discovery.issuer).toBe(`http://127.0.0.1:${port}`)
    } finally {
      demo.child.kill('SIGTERM')
      await demo.exited
    }
  })
})
