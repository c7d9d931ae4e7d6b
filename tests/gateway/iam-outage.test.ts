/**
 * The gateway while the IAM's database is away: the BFF answers 503 JSON with
 * Retry-After and a message of its own, never a 500 or a hang, and works again once the database
 * is back. PostgreSQL only (PGlite cannot go away): a TCP proxy between the IAM and PostgreSQL
 * takes it away without stopping the shared server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIam, type IamServer } from '../helpers/iam-server'
import { setupGateway } from '../helpers/nuxt-gateway'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy'
import { createThrowawayPg } from '../helpers/test-database'
import { browserLike, freshEmail, hmac, PASSWORD } from './bff-harness'
import { skippedWithout, titled } from '../helpers/skip-notes'

const { DATABASE_URL } = process.env
const UNAVAILABLE = { ok: false, error: 'The sign-in service is unavailable. Please try again in a moment.', code: 'service_unavailable' }

let iam: IamServer
let proxy: TcpProxy
let drop: () => Promise<void>

beforeAll(async () => {
  if (!DATABASE_URL) return
  const pg = await createThrowawayPg(DATABASE_URL)
  drop = pg.drop
  const target = new URL(pg.url)
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const proxied = new URL(pg.url)
  proxied.host = proxy.address
  iam = await startIam({
    share: { databaseUrl: proxied.toString(), storagePrefix: `gw${Date.now().toString(36)}` },
    config: { service: { Hmac: { ...hmac, requireBodyDigest: true }, proxy: { trust: true, ipToTrust: '127.0.0.1' } } },
  })
}, 300_000)

afterAll(async () => {
  if (!DATABASE_URL) return
  await iam?.stop()
  await proxy?.close()
  await drop?.()
})

// started only when the file runs (after the IAM above, stopped before it)
const gateway = DATABASE_URL
  ? await setupGateway({ config: () => ({ iam: { url: iam.url, hmac }, cookieSecret: 'bff-test-cookie-secret-0123456789abcdef01' }) })
  : { url: '' }

// skipped without DATABASE_URL: an embedded PGlite cannot go away under the IAM; the PostgreSQL + Redis run sets it
describe.skipIf(skippedWithout('postgres'))(titled('gateway during an IAM database outage (PostgreSQL only: PGlite cannot go away)', 'postgres'), () => {
  it('answers 503 JSON with Retry-After, for a new and a known device, and signs in again once the database is back', async () => {
    const known = browserLike(gateway.url)
    const login = (browser: ReturnType<typeof browserLike>) =>
      browser.call('/api/auth/login', { method: 'POST', body: { email: freshEmail('outage'), password: PASSWORD } })
    expect((await login(known)).status).toBe(401) // the device cookie is set; nobody has that address

    await proxy.down()
    try {
      for (const browser of [known, browserLike(gateway.url)]) {
        const res = await login(browser)
        expect(res.status).toBe(503)
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
        expect(res.json).toEqual(UNAVAILABLE)
      }
    } finally {
      await proxy.up()
    }
    for (let i = 0; i < 50 && (await fetch(`${iam.url}/health/ready`)).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect((await login(browserLike(gateway.url))).status).toBe(401)
  }, 120_000)
})
