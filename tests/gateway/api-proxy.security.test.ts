/**
 * The API proxy hands each API a token bound to that API alone (docs/gateway.md, "Call your APIs
 * through the gateway"): two APIs started here record what they receive, and each gets an access
 * token whose `aud` is exactly its own audience, whose `sub` is the person's public id (never the
 * database's serial id), signed with the IAM's published keys; what one API received fails the
 * other's audience check and is no session token to the IAM. The gateway asks the IAM once per
 * session and API and reuses the token; an audience the IAM does not issue for is refused.
 */
// store-independent: the gateway keeps no store of its own; the tokens it hands each API are signed by the IAM the same way on both stores (tests/iam/access-token-verifier.test.ts)
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createIamClient } from '../../iam/client/iam-client'
import { flushedLogs, waitForLog } from '../helpers/logs'
import { browserLike, freshEmail, hmac, PASSWORD, setupStack } from './bff-harness'

const AUDIENCE_A = 'https://orders.api.example'
const AUDIENCE_B = 'https://billing.api.example'
/** configured at the gateway, but not among the IAM's audiences */
const AUDIENCE_UNKNOWN = 'https://unknown.api.example'
const ISSUER = 'http://127.0.0.1:3001'
const SESSION_AUDIENCE = 'http://127.0.0.1:3000'

interface Received {
  api: string
  url: string
  headers: IncomingHttpHeaders
}
let received: Received[] = []
const upstreams: Server[] = []
const ports: Record<string, number> = {}

function startUpstream(api: string): Promise<void> {
  const server = createServer((req, res) => {
    received.push({ api, url: req.url ?? '', headers: req.headers })
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ api }))
  })
  upstreams.push(server)
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      ports[api] = (server.address() as AddressInfo).port
      resolve()
    }),
  )
}

beforeAll(async () => {
  await Promise.all(['a', 'b', 'unknown'].map(startUpstream))
})
afterAll(() => Promise.all(upstreams.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))))
beforeEach(() => {
  received = []
})

const stack = await setupStack(
  () => ({
    rate_limiters: { signup: { points: 100, duration: 60, blockDuration: 1 }, login: { points: 100, duration: 60, blockDuration: 1 } },
    jwt: { api_access_tokens: { audiences: [AUDIENCE_A, AUDIENCE_B] } },
  }),
  () => ({
    apis: [
      { name: 'a', upstream: `http://127.0.0.1:${ports.a}/a`, audience: AUDIENCE_A },
      { name: 'b', upstream: `http://127.0.0.1:${ports.b}/b`, audience: AUDIENCE_B },
      { name: 'unknown', upstream: `http://127.0.0.1:${ports.unknown}/u`, audience: AUDIENCE_UNKNOWN },
    ],
  }),
)

async function signedIn() {
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', {
    method: 'POST',
    body: { email: freshEmail('proxy-aud'), password: PASSWORD, confirmedPassword: PASSWORD, name: 'Proxy Audience', termsConsent: 'on' },
  })
  expect(res.status, res.text).toBe(201)
  return b
}

const iamClient = () => createIamClient({ baseUrl: stack.iam.url, hmac })
/** what the browser's own requests carry to the IAM through the gateway (browserLike's user agent, its address) */
const AS_THE_BROWSER = { clientIp: '127.0.0.1', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36' }

/** The IAM's published keys, read as an API would (through the gateway's signature, as the IAM wants from loopback). */
async function iamKeys() {
  const jwks = await iamClient().request<JSONWebKeySet>({ method: 'GET', path: '/.well-known/jwks.json' })
  expect(jwks.status).toBe(200)
  return createLocalJWKSet(jwks.body!)
}

/** The IAM's per-API token issuances so far. */
const issuanceCalls = async () => (await flushedLogs(stack.iam)).filter((line) => line.includes('"path":"/auth/user/api-access-token"')).length

const bearerOf = (r: Received) => /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1] ?? ''

describe('each API gets a token of its own audience', () => {
  it('sends A and B tokens whose aud is exactly their own, with the public id as sub, never the session token', async () => {
    const b = await signedIn()
    expect((await b.call('/api/upstream/a/things')).status).toBe(200)
    expect((await b.call('/api/upstream/b/things')).status).toBe(200)
    expect(received.map((r) => `${r.api} ${r.url}`)).toEqual(['a /a/things', 'b /b/things'])
    const [tokenA, tokenB] = received.map(bearerOf)
    const session = b.jar.get('__Secure-a')!
    expect(tokenA).not.toBe(session)
    expect(tokenB).not.toBe(session)
    expect(tokenA).not.toBe(tokenB)

    const keys = await iamKeys()
    const a = await jwtVerify(tokenA!, keys, { issuer: ISSUER, audience: AUDIENCE_A, typ: 'at+jwt' })
    const bb = await jwtVerify(tokenB!, keys, { issuer: ISSUER, audience: AUDIENCE_B, typ: 'at+jwt' })
    expect(a.payload.aud).toBe(AUDIENCE_A)
    expect(bb.payload.aud).toBe(AUDIENCE_B)
    // the session's claims and the person's public id (as the session token's): no serial database id leaves for an API
    const sessionClaims = decodeJwt(session)
    for (const payload of [a.payload, bb.payload]) {
      expect(payload.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect(payload.sub).toBe(sessionClaims.sub)
      expect(payload.jti).not.toBe(sessionClaims.jti)
      expect(payload.sid).toBe(sessionClaims.sid)
      expect(payload.roles).toEqual(['user'])
      // never outlives the session token it was issued for
      expect(payload.exp!).toBeLessThanOrEqual(sessionClaims.exp!)
    }
    expect(a.payload.sub).toBe(bb.payload.sub)
  })

  it("refuses what A received at B's audience check, and the IAM takes it for no session token", async () => {
    const b = await signedIn()
    expect((await b.call('/api/upstream/a/x')).status).toBe(200)
    const tokenA = bearerOf(received[0]!)
    const keys = await iamKeys()
    await expect(jwtVerify(tokenA, keys, { issuer: ISSUER, audience: AUDIENCE_B })).rejects.toThrow(/aud/)
    await expect(jwtVerify(tokenA, keys, { issuer: ISSUER, audience: SESSION_AUDIENCE })).rejects.toThrow(/aud/)
    // replayed to the IAM as this session's access token, beside the session's own cookies
    const res = await iamClient().request({
      method: 'GET',
      path: '/secret/accesstoken/metadata',
      headers: { authorization: `Bearer ${tokenA}` },
      cookies: { session: b.jar.get('session')!, canary_id: b.jar.get('canary_id')! },
      ...AS_THE_BROWSER,
    })
    expect(res.status).toBe(401)
  })

  it('asks the IAM once per session and API, and reuses the token across calls, parallel ones too', async () => {
    const b = await signedIn()
    const before = await issuanceCalls()
    expect((await b.call('/api/upstream/a/1')).status).toBe(200)
    const parallel = await Promise.all(Array.from({ length: 6 }, (_, i) => b.call(`/api/upstream/a/p${i}`)))
    for (const r of parallel) expect(r.status, r.text).toBe(200)
    expect((await b.call('/api/upstream/a/2')).status).toBe(200)
    expect(new Set(received.map(bearerOf)).size).toBe(1)
    expect((await issuanceCalls()) - before).toBe(1)
    // another API is another token; another session another again
    expect((await b.call('/api/upstream/b/1')).status).toBe(200)
    expect((await issuanceCalls()) - before).toBe(2)
    const other = await signedIn()
    expect((await other.call('/api/upstream/a/1')).status).toBe(200)
    expect((await issuanceCalls()) - before).toBe(3)
    expect(new Set(received.map(bearerOf)).size).toBe(3)
  })
})

describe('audiences the IAM does not issue for', () => {
  it('answers 502 and logs it at the gateway for an API whose audience the IAM refuses; the API hears nothing', async () => {
    const b = await signedIn()
    const res = await b.call('/api/upstream/unknown/things')
    expect(res.status).toBe(502)
    expect(String(res.json.error)).toMatch(/gateway misconfigured/i)
    expect(received).toHaveLength(0)
    await waitForLog(stack.gateway, (line) => line.includes('"api":"unknown"') && line.includes('jwt.api_access_tokens.audiences'))
  })

  it('refuses at the IAM an audience outside its list, the session audience included (403)', async () => {
    const b = await signedIn()
    for (const audience of [AUDIENCE_UNKNOWN, SESSION_AUDIENCE]) {
      const res = await iamClient().request<{ reason?: string; code?: string }>({
        method: 'POST',
        path: '/auth/user/api-access-token',
        headers: { authorization: `Bearer ${b.jar.get('__Secure-a')}` },
        cookies: { session: b.jar.get('session')!, canary_id: b.jar.get('canary_id')! },
        body: { audience },
        ...AS_THE_BROWSER,
      })
      expect(res.status, audience).toBe(403)
      expect(res.body?.reason).toBe('AUDIENCE_NOT_ALLOWED')
      expect(res.body?.code).toBe('audience_not_allowed')
    }
  })
})
