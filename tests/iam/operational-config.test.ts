import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startIam, type IamServer } from '../helpers/iam-server'

// Starting IAM processes (PGlite boot, migrations) is slow on a loaded shared machine.
const START_TIMEOUT_MS = 180_000

const jwt = { refresh_tokens: { domain: 'example.test' }, access_tokens: { expiresInMs: 600_000 } }

// Behind a trusted proxy (127.0.0.1) with the allowed client 192.0.2.10: X-Forwarded-For
// simulates clients other than loopback.
let proxied: IamServer
// No proxy trust, the allowed client elsewhere: loopback is refused and X-Forwarded-For ignored.
let direct: IamServer
beforeAll(async () => {
  ;[proxied, direct] = await Promise.all([
    startIam({ config: { jwt, service: { clientIp: '192.0.2.10', proxy: { trust: true, ipToTrust: '127.0.0.1' } } } }),
    startIam({ config: { jwt, service: { clientIp: '192.0.2.10' } } }),
  ])
}, START_TIMEOUT_MS)
afterAll(() => Promise.all([proxied?.stop(), direct?.stop()]))

const get = async (iam: IamServer, forwardedFor?: string) => {
  const res = await fetch(`${iam.url}/operational/config`, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} })
  return { status: res.status, body: (await res.json()) as unknown }
}

describe('GET /operational/config', () => {
  it('answers the cookie domain and access token TTL to service.clientIp', async () => {
    expect(await get(proxied, '192.0.2.10')).toEqual({ status: 200, body: { domain: 'example.test', accessTokenTTL: 600_000 } })
  })
  it('answers to service.proxy.ipToTrust', async () => {
    expect(await get(proxied)).toEqual({ status: 200, body: { domain: 'example.test', accessTokenTTL: 600_000 } })
  })
  it('recognises the allowed client through an IPv4-mapped address', async () => {
    expect(await get(proxied, '::ffff:192.0.2.10')).toMatchObject({ status: 200 })
  })
  it('refuses any other client IP with 403 Forbidden', async () => {
    expect(await get(proxied, '203.0.113.9')).toEqual({ status: 403, body: { error: 'Forbidden', code: 'forbidden' } })
    expect(await get(proxied, '192.0.2.10, 203.0.113.9')).toEqual({ status: 403, body: { error: 'Forbidden', code: 'forbidden' } })
  })
  it('refuses loopback when it is not allowed, and ignores X-Forwarded-For from an untrusted peer', async () => {
    expect(await get(direct)).toEqual({ status: 403, body: { error: 'Forbidden', code: 'forbidden' } })
    expect(await get(direct, '192.0.2.10')).toEqual({ status: 403, body: { error: 'Forbidden', code: 'forbidden' } })
  })
  // The 15-minute default of accessTokenTTL is asserted in hmac.test.ts (default config there).
})

describe('test-only routes', () => {
  it('answer 404 unless IAM_TEST_ROUTES=1', async () => {
    const echo = await fetch(`${direct.url}/__test/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })
    expect(echo.status).toBe(404)
    expect(await echo.json()).toEqual({ error: "The page you are looking for doesn't exists", code: 'not_found' })
    const thrown = await fetch(`${direct.url}/__test/throw`)
    expect(thrown.status).toBe(404)
  })
})
