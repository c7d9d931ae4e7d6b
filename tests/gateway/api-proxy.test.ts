/**
 * The token-mediating API proxy (/api/upstream/<name>/**) against the real IAM and a small API
 * started here that records what reached it: the user's access token for the API's audience as
 * Bearer and nothing of the browser's cookies, one refresh for many parallel calls, paths that cannot leave the API's base,
 * filtered headers both ways, CSRF, and the statuses of an unknown API, a missing session, an API
 * that is down or slow, an audience the IAM does not issue for and a role the user lacks
 * (api-proxy.security.test.ts: each API's token is good at that API alone).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createIamClient } from '../../iam/client/iam-client'
import { advanceClock, GATEWAY_CLOCK_ENV } from '../helpers/clock'
import { flushedLogs, waitForLog } from '../helpers/logs'
import { FRAME_HEADERS } from '../helpers/frame-headers'
import { browserLike, freshEmail, hmac, PASSWORD, setupStack } from './bff-harness'

interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

let received: Received[] = []
let upstream: Server
let upstreamPort = 0
let closedPort = 0

/** The API: /slow never answers, /set-cookie answers with cookies and policy headers, the rest echoes. */
function startUpstream(): Promise<void> {
  upstream = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      if (req.url?.startsWith('/base/slow')) return // never answers
      if (req.url?.startsWith('/base/set-cookie')) {
        res.writeHead(200, {
          'content-type': 'application/json',
          'set-cookie': ['session=from-api; Path=/', '__Secure-a=from-api; Path=/; Secure'],
          'content-security-policy': "default-src *; script-src 'unsafe-inline'",
          'access-control-allow-origin': 'https://evil.example',
          'x-frame-options': 'ALLOWALL',
          'clear-site-data': '"cookies"',
          'cache-control': 'public, max-age=60, s-maxage=600',
          'x-api': 'kept',
          connection: 'keep-alive, x-hop-out',
          'x-hop-out': 'named by Connection',
          'keep-alive': 'timeout=77',
        })
        res.end('{"ok":true}')
        return
      }
      if (req.url?.startsWith('/base/redirect')) {
        res.writeHead(302, { location: 'https://elsewhere.example/next' })
        res.end()
        return
      }
      res.writeHead(201, { 'content-type': 'application/json', 'x-api': 'echo' })
      res.end(JSON.stringify({ echo: true, method: req.method, url: req.url }))
    })
  })
  return new Promise((resolve) =>
    upstream.listen(0, '127.0.0.1', () => {
      upstreamPort = (upstream.address() as AddressInfo).port
      resolve()
    }),
  )
}

/** A port nothing listens on: bound once, then closed. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

beforeAll(async () => {
  await startUpstream()
  closedPort = await freePort()
})
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())))
beforeEach(() => {
  received = []
})

const base = () => `http://127.0.0.1:${upstreamPort}/base`
/** the audience of the API most tests call (one the IAM issues per-API tokens for) */
const API_AUDIENCE = 'https://api.example'
const stack = await setupStack(
  () => ({
    rate_limiters: { signup: { points: 100, duration: 60, blockDuration: 1 }, login: { points: 100, duration: 60, blockDuration: 1 } },
    jwt: { api_access_tokens: { audiences: [API_AUDIENCE, 'https://users-only.example', 'https://admins-only.example', 'https://small.example', 'https://down.example', 'https://slow.example'] } },
  }),
  () => ({
    apis: [
      { name: 'api', upstream: base(), audience: API_AUDIENCE },
      { name: 'users-only', upstream: base(), scopes: ['user'], audience: 'https://users-only.example' },
      { name: 'admins-only', upstream: base(), scopes: ['admin'], audience: 'https://admins-only.example' },
      { name: 'elsewhere', upstream: base(), audience: 'https://other-api.example' },
      { name: 'down', upstream: `http://127.0.0.1:${closedPort}/base`, audience: 'https://down.example' },
      { name: 'slow', upstream: base(), timeoutMs: 300, audience: 'https://slow.example' },
      { name: 'small', upstream: base(), maxBodyBytes: 16, audience: 'https://small.example' },
    ],
  }),
  // the last test moves the gateway's clock (token life as the gateway judges it)
  { gateway: GATEWAY_CLOCK_ENV },
)

async function signedIn() {
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', {
    method: 'POST',
    body: { email: freshEmail('proxy'), password: PASSWORD, confirmedPassword: PASSWORD, name: 'Proxy User', termsConsent: 'on' },
  })
  expect(res.status, res.text).toBe(201)
  return b
}

/** The IAM's refresh requests so far. */
const refreshCalls = async () => (await flushedLogs(stack.iam)).filter((line) => line.includes('"path":"/auth/user/refresh-session"')).length

/** A request sent as written (fetch would normalise `..` and `%2e%2e` before sending). */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string }> {
  const url = new URL(stack.gateway.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

const cookieOf = (b: ReturnType<typeof browserLike>) => [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ')

describe('who may call', () => {
  it('answers 401 signedOut without a session, and the API is not called', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/upstream/api/things')
    expect(res.status).toBe(401)
    expect(res.json).toMatchObject({ ok: false, signedOut: true })
    expect(received).toHaveLength(0)
  })

  it('answers 404 for an API that is not configured', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/nope/things')
    expect(res.status).toBe(404)
    expect(res.json.ok).toBe(false)
    expect(received).toHaveLength(0)
  })

  it('answers 403 when the token lacks a required role, and forwards when it has it', async () => {
    const b = await signedIn()
    const refused = await b.call('/api/upstream/admins-only/things')
    expect(refused.status).toBe(403)
    expect(refused.json.ok).toBe(false)
    expect(String(refused.json.error)).toMatch(/permission/i)
    expect(received).toHaveLength(0)
    const allowed = await b.call('/api/upstream/users-only/things')
    expect(allowed.status).toBe(201)
    expect(received).toHaveLength(1)
  })

  it('answers 502 and logs it when the IAM does not issue tokens for the API\'s audience', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/elsewhere/things')
    expect(res.status).toBe(502)
    expect(String(res.json.error)).toMatch(/gateway misconfigured: the IAM does not issue tokens for this API's audience/i)
    expect(received).toHaveLength(0)
    await waitForLog(stack.gateway, (line) => line.includes('does not issue tokens') && line.includes('"api":"elsewhere"'))
  })
})

describe('what is forwarded', () => {
  it("sends the user's token for the API's audience as Bearer, the path and query under the base, the body and selected headers only", async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/api/things/42?x=1&y=%20z', {
      method: 'POST',
      body: { hello: 'world' },
      headers: {
        authorization: 'Bearer from-the-browser',
        'accept-language': 'fr',
        'if-none-match': '"v1"',
        'x-secret': 'not for the API',
        'x-request-id': 'proxy-test-1',
        'x-forwarded-for': '203.0.113.9',
      },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.headers.get('x-api')).toBe('echo')
    expect(res.json).toMatchObject({ echo: true, method: 'POST', url: '/base/things/42?x=1&y=%20z' })
    expect(received).toHaveLength(1)
    const got = received[0]!
    expect(got.body).toBe('{"hello":"world"}')
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['accept-language']).toBe('fr')
    expect(got.headers['if-none-match']).toBe('"v1"')
    expect(got.headers['x-request-id']).toBe('proxy-test-1')
    expect(got.headers['user-agent']).toMatch(/Mozilla/)
    // the client's address as the gateway resolved it (the test talks from 127.0.0.1), not what it claimed
    expect(got.headers['x-forwarded-for']).toBe('127.0.0.1')
    for (const header of ['cookie', 'x-secret', 'te', 'proxy-authorization', 'origin', 'x-csrf', 'sec-fetch-site']) expect(got.headers[header]).toBeUndefined()
    // the bearer is a valid IAM access token for this API: neither the browser's header nor the session's own token
    const token = /^Bearer (.+)$/.exec(got.headers.authorization ?? '')?.[1]
    expect(token).not.toBe(b.jar.get('__Secure-a'))
    // the IAM signs every route but /health from loopback: its key set is read as the gateway would
    const jwks = await createIamClient({ baseUrl: stack.iam.url, hmac }).request<JSONWebKeySet>({ method: 'GET', path: '/.well-known/jwks.json' })
    expect(jwks.status).toBe(200)
    const { payload } = await jwtVerify(token!, createLocalJWKSet(jwks.body!), { audience: API_AUDIENCE })
    expect(payload.aud).toBe(API_AUDIENCE)
    expect(payload.roles).toEqual(['user'])
    expect(payload.sid).toBe(decodeJwt(b.jar.get('__Secure-a')!).sid)
  })

  it('drops hop-by-hop headers and the browser cookies', async () => {
    const b = await signedIn()
    const res = await raw('/api/upstream/api/hop', {
      cookie: cookieOf(b),
      'user-agent': 'test',
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'x-hop': 'named by Connection',
      te: 'trailers',
      'proxy-authorization': 'Basic eDp5',
      'proxy-connection': 'keep-alive',
    })
    expect(res.status, res.body).toBe(201)
    const got = received[0]!
    for (const header of ['cookie', 'keep-alive', 'x-hop', 'te', 'trailer', 'proxy-authorization', 'proxy-connection', 'upgrade']) expect(got.headers[header]).toBeUndefined()
    expect(got.headers.connection ?? '').not.toMatch(/x-hop/)
    expect(got.headers.authorization).toMatch(/^Bearer ey/)
    expect(got.headers.authorization).not.toBe(`Bearer ${b.jar.get('__Secure-a')}`)
  })

  it('forwards to the base path itself, with a trailing slash, and HEAD without a body', async () => {
    const b = await signedIn()
    expect((await b.call('/api/upstream/api')).status).toBe(201)
    expect((await b.call('/api/upstream/api/things/')).status).toBe(201)
    const head = await b.call('/api/upstream/api/things', { method: 'HEAD' })
    expect(head.status).toBe(201)
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /base', 'GET /base/things/', 'HEAD /base/things'])
  })

  it('strips Set-Cookie, hop-by-hop and policy headers from the answer; keeps the gateway\'s own', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/api/set-cookie')
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ ok: true })
    expect(res.setCookies.filter((c) => /from-api/.test(c))).toEqual([])
    expect(res.headers.get('x-api')).toBe('kept')
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/)
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.headers.get('clear-site-data')).toBeNull()
    // the gateway's own connection may be kept alive; the API's hop-by-hop values are not relayed
    expect(res.headers.get('keep-alive') ?? '').not.toMatch(/77/)
    expect(res.headers.get('x-hop-out')).toBeNull()
    expect(res.headers.get('cache-control')).toBe('private, max-age=60')
  })

  // server/utils/direct-lane.ts: a page's script calls on the direct lane, a navigation takes the page path
  it('answers an API call of a page\'s script as the page path answers the same call navigated to', async () => {
    const b = await signedIn()
    const scripted = await b.call('/api/upstream/api/set-cookie')
    const navigated = await b.call('/api/upstream/api/set-cookie', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    expect(scripted.status).toBe(200)
    expect(navigated.status).toBe(scripted.status)
    expect(navigated.json).toEqual(scripted.json)
    for (const name of [...FRAME_HEADERS, 'content-type', 'x-api']) expect(navigated.headers.get(name), name).toBe(scripted.headers.get(name))
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /base/set-cookie', 'GET /base/set-cookie'])
  })

  it('returns a redirect of the API without following it', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/api/redirect')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('https://elsewhere.example/next')
    expect(received).toHaveLength(1)
  })

  it('bounds the body by the API\'s maxBodyBytes (413)', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/small/things', { method: 'POST', body: { text: 'more than sixteen bytes' } })
    expect(res.status).toBe(413)
    expect(received).toHaveLength(0)
  })
})

describe('paths stay under the API base', () => {
  const tricks = [
    '/api/upstream/api/../x',
    '/api/upstream/api/../../auth/session',
    '/api/upstream/api/%2e%2e/x',
    '/api/upstream/api/%2E%2e/%2e%2E/x',
    '/api/upstream/api/.%2e/x',
    '/api/upstream/api/./x',
    '/api/upstream/api/a%2f..%2f..%2fx',
    '/api/upstream/api/a%2F..',
    '/api/upstream/api//evil.example/x',
    '/api/upstream/api/a//b',
    '/api/upstream/api/\\evil.example/x',
    '/api/upstream/api/a\\..\\..\\x',
    '/api/upstream/api/a%5c..%5cx',
    '/api/upstream/api/a%00b',
    '/api/upstream/api/%zz',
  ]
  it.each(tricks)('%s is 400 and the API is never called', async (path) => {
    const b = await signedIn()
    received = []
    const res = await raw(path, { cookie: cookieOf(b), 'user-agent': 'test', accept: 'application/json' })
    expect(res.status, res.body).toBe(400)
    expect(received).toHaveLength(0)
  })
})

describe('refresh and failures', () => {
  it("refreshes an expired access token once for 8 parallel calls, each of which reaches the API with one token issued for the new session's", async () => {
    const b = await signedIn()
    const old = b.jar.get('__Secure-a')
    // the access cookie expires with its token: the browser stops sending it
    b.jar.delete('__Secure-a')
    const before = await refreshCalls()
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => b.call(`/api/upstream/api/parallel/${i}`)))
    for (const r of results) expect(r.status, r.text).toBe(201)
    expect((await refreshCalls()) - before).toBe(1)
    expect(received).toHaveLength(8)
    const bearers = new Set(received.map((r) => r.headers.authorization))
    expect(bearers.size).toBe(1)
    expect([...bearers][0]).not.toBe(`Bearer ${old}`)
    // issued with the refreshed session token: the API's token is one of the new session token's
    expect(decodeJwt([...bearers][0]!.slice(7)).exp).toBeLessThanOrEqual(decodeJwt(b.jar.get('__Secure-a')!).exp!)
    expect(decodeJwt([...bearers][0]!.slice(7)).exp).toBeGreaterThan(decodeJwt(old!).iat!)
  })

  it('answers 502 when the API is unreachable', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/down/things')
    expect(res.status).toBe(502)
    expect(res.json.ok).toBe(false)
  })

  it('answers 504 when the API does not answer within timeoutMs', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/slow/slow')
    expect(res.status).toBe(504)
    expect(res.json.ok).toBe(false)
    expect(received).toHaveLength(1)
  })
})

describe('CSRF', () => {
  it('refuses a cross-site POST (403) and passes a POST with X-CSRF: 1', async () => {
    const b = await signedIn()
    const cross = await b.call('/api/upstream/api/things', {
      method: 'POST',
      body: { a: 1 },
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'x-csrf': '' },
    })
    expect(cross.status).toBe(403)
    const noHeader = await b.call('/api/upstream/api/things', { method: 'DELETE', headers: { 'x-csrf': '' } })
    expect(noHeader.status).toBe(403)
    expect(received).toHaveLength(0)
    const ok = await b.call('/api/upstream/api/things', { method: 'POST', body: { a: 1 } })
    expect(ok.status).toBe(201)
    expect(received).toHaveLength(1)
  })
})

// the file's last test: it moves the gateway's clock, after which every token looks old to it
describe('a token near expiry', () => {
  it('is refreshed once for 8 parallel calls while the browser still sends it', async () => {
    const b = await signedIn()
    const old = b.jar.get('__Secure-a')
    // 12.5 of the IAM's 15 minutes gone by the gateway's clock: less than a quarter of its life left
    await advanceClock(stack.gateway, 12.5 * 60_000)
    const before = await refreshCalls()
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => b.call(`/api/upstream/api/near/${i}`)))
    for (const r of results) expect(r.status, r.text).toBe(201)
    expect((await refreshCalls()) - before).toBe(1)
    const bearers = new Set(received.map((r) => r.headers.authorization))
    expect(received).toHaveLength(8)
    expect(bearers.size).toBe(1)
    expect([...bearers][0]).not.toBe(`Bearer ${old}`)
  })
})
