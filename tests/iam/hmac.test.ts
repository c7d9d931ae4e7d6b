import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signRequest } from '../../iam/client/hmac'
import { startIam, type IamServer } from '../helpers/iam-server'

// Starting IAM processes (PGlite boot, migrations) is slow on a loaded shared machine.
const START_TIMEOUT_MS = 180_000

const Hmac = { clientId: 'gateway', sharedSecret: 'test-shared-secret-0123456789-abcdefghij', maxClockSkew: 300_000 }
// Trusted proxy on loopback: X-Forwarded-For makes a request come from a non-local client.
const config = { service: { Hmac, proxy: { trust: true, ipToTrust: '127.0.0.1' } } }
const REMOTE = { 'x-forwarded-for': '203.0.113.9' }

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config, env: { IAM_TEST_ROUTES: '1' } })
}, START_TIMEOUT_MS)
afterAll(() => iam?.stop())

function sign(method: string, url: string, opts: { now?: number; requestId?: string; secret?: string; clientId?: string } = {}) {
  return signRequest({
    clientId: opts.clientId ?? Hmac.clientId,
    sharedSecret: opts.secret ?? Hmac.sharedSecret,
    method,
    url,
    now: opts.now,
    requestId: opts.requestId,
  })
}

async function call(server: IamServer, method: string, url: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${server.url}${url}`, { method, headers, body })
  const text = await res.text()
  return { status: res.status, text, json: text.startsWith('{') ? (JSON.parse(text) as unknown) : undefined, headers: res.headers }
}

describe('HMAC verification', () => {
  it('accepts a signed request and echoes its request id', async () => {
    const headers = sign('GET', '/operational/config')
    const res = await call(iam, 'GET', '/operational/config', headers)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ domain: 'localhost', accessTokenTTL: 900_000 })
    expect(res.headers.get('x-request-id')).toBe(headers['x-request-id'])
  })
  it('accepts a signed JSON POST with a query string', async () => {
    const url = '/__test/echo?a=1&b=two'
    const res = await call(iam, 'POST', url, { ...sign('POST', url), 'content-type': 'application/json' }, '{"x":1}')
    expect(res).toMatchObject({ status: 200, json: { x: 1 } })
  })
  it('answers 401 "Missing HMAC headers" when any header is absent', async () => {
    expect(await call(iam, 'GET', '/operational/config', {})).toMatchObject({ status: 401, json: { reason: 'Missing HMAC headers' } })
    for (const name of ['x-client-id', 'x-timestamp', 'x-signature', 'x-request-id']) {
      const headers = sign('GET', '/operational/config')
      delete headers[name]
      expect(await call(iam, 'GET', '/operational/config', headers)).toMatchObject({ status: 401, json: { reason: 'Missing HMAC headers' } })
    }
  })
  it('answers 401 "Unknown client" for another client id', async () => {
    const headers = sign('GET', '/operational/config', { clientId: 'someone-else' })
    expect(await call(iam, 'GET', '/operational/config', headers)).toMatchObject({ status: 401, json: { reason: 'Unknown client' } })
  })
  it('answers 401 "Invalid timestamp" for a timestamp that is not milliseconds', async () => {
    const headers = { ...sign('GET', '/operational/config'), 'x-timestamp': 'yesterday' }
    expect(await call(iam, 'GET', '/operational/config', headers)).toMatchObject({ status: 401, json: { reason: 'Invalid timestamp' } })
  })
  it('answers 401 "Request expired" beyond the clock skew, past or future', async () => {
    for (const now of [Date.now() - 6 * 60_000, Date.now() + 6 * 60_000]) {
      const headers = sign('GET', '/operational/config', { now })
      expect(await call(iam, 'GET', '/operational/config', headers)).toMatchObject({ status: 401, json: { reason: 'Request expired' } })
    }
  })
  it('answers 401 "Invalid signature" for a wrong secret, path, query or method', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      ['GET', '/operational/config', sign('GET', '/operational/config', { secret: 'another-secret-that-is-long-enough-1234567' })],
      ['GET', '/operational/config', sign('GET', '/health')],
      ['GET', '/operational/config?x=2', sign('GET', '/operational/config?x=1')],
      ['GET', '/operational/config', sign('POST', '/operational/config')],
      ['GET', '/operational/config', { ...sign('GET', '/operational/config'), 'x-signature': 'not-hex' }],
    ]
    for (const [method, url, headers] of cases) {
      expect(await call(iam, method, url, headers)).toMatchObject({ status: 401, json: { reason: 'Invalid signature' } })
    }
  })
  it('answers 401 "Replayed request" for a request id seen before', async () => {
    const headers = sign('GET', '/operational/config')
    expect((await call(iam, 'GET', '/operational/config', headers)).status).toBe(200)
    expect(await call(iam, 'GET', '/operational/config', headers)).toMatchObject({ status: 401, json: { reason: 'Replayed request' } })
  })
  it('does not let a forged request burn a nonce', async () => {
    const requestId = randomUUID()
    const forged = { ...sign('GET', '/operational/config', { requestId }), 'x-signature': '0'.repeat(64) }
    expect(await call(iam, 'GET', '/operational/config', forged)).toMatchObject({ status: 401, json: { reason: 'Invalid signature' } })
    expect((await call(iam, 'GET', '/operational/config', sign('GET', '/operational/config', { requestId }))).status).toBe(200)
  })
  it('runs before the body rules: an unsigned bad body gets the HMAC 401', async () => {
    const res = await call(iam, 'POST', '/__test/echo', { 'content-type': 'text/plain' }, 'x')
    expect(res).toMatchObject({ status: 401, json: { reason: 'Missing HMAC headers' } })
  })
})

describe('GET /health and HMAC', () => {
  it('is exempt from loopback', async () => {
    const res = await call(iam, 'GET', '/health', {})
    expect(res).toMatchObject({ status: 200, text: 'OK' })
  })
  it('is not exempt for a non-local client', async () => {
    expect(await call(iam, 'GET', '/health', REMOTE)).toMatchObject({ status: 401, json: { reason: 'Missing HMAC headers' } })
    expect(await call(iam, 'GET', '/health', { ...REMOTE, ...sign('GET', '/health') })).toMatchObject({ status: 200, text: 'OK' })
  })
  it('exempts only GET /health, not other loopback requests', async () => {
    expect(await call(iam, 'GET', '/operational/config', {})).toMatchObject({ status: 401, json: { reason: 'Missing HMAC headers' } })
  })
})

// Two instances sharing one Redis: a nonce seen by one is a replay at the other. Without
// REDIS_URL each instance has its own memory store, so the property cannot hold and is skipped.
describe.skipIf(!process.env.REDIS_URL)('replay across instances (shared Redis)', () => {
  let second: IamServer
  beforeAll(async () => {
    second = await startIam({ config, share: iam.share })
  }, START_TIMEOUT_MS)
  afterAll(() => second?.stop())

  it('rejects at instance B a request id first used at instance A', async () => {
    const headers = sign('GET', '/operational/config')
    expect((await call(iam, 'GET', '/operational/config', headers)).status).toBe(200)
    expect(await call(second, 'GET', '/operational/config', headers)).toMatchObject({ status: 401, json: { reason: 'Replayed request' } })
  })
})
