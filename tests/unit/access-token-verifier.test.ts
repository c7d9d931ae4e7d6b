/**
 * verifier/ (the module resource servers import) against keys made by jose and a JWK Set, issuer
 * metadata and introspection endpoint served by this file over local HTTP: what it accepts, what
 * it refuses and with which status and reason, how often it fetches the keys, and how it handles
 * introspection answers (a client-side check: the provider's own behaviour is in
 * tests/gateway/access-token-verifier.test.ts).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearerFrom, createAccessTokenVerifier, wwwAuthenticate, type AccessTokenVerifierOptions } from '../../verifier/index.js'

const AUDIENCE = 'https://api.example.test/'

interface Key {
  kid: string
  alg: string
  privateKey: CryptoKey
  publicKey: CryptoKey
  jwk: JWK
}

async function makeKey(kid: string, alg: 'EdDSA' | 'RS256' | 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

/** The server's state: the keys it publishes, its counters, the introspection answers. */
const published: JWK[] = []
let jwksRequests = 0
const introspections: Array<{ authorization?: string; body: string }> = []
const inactive = new Set<string>()
let introspectionFails = false
let server: Server
let issuer: string
let edKey: Key
let rsaKey: Key

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => resolve(body))
  })

beforeAll(async () => {
  edKey = await makeKey('ed-1', 'EdDSA')
  rsaKey = await makeKey('rsa-1', 'RS256')
  published.push(edKey.jwk, rsaKey.jwk)
  server = createServer(async (req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    if (req.url === '/jwks') {
      jwksRequests++
      return json(200, { keys: published })
    }
    if (req.url === '/.well-known/openid-configuration') return json(200, { issuer, jwks_uri: `${issuer}/jwks`, introspection_endpoint: `${issuer}/introspect` })
    if (req.url === '/introspect' && req.method === 'POST') {
      const body = await readBody(req)
      introspections.push({ authorization: req.headers.authorization, body })
      if (introspectionFails) return json(500, { error: 'server_error' })
      const token = new URLSearchParams(body).get('token')!
      if (inactive.has(token)) return json(200, { active: false })
      // opaque tokens of this file: opaque-<audience>
      if (token.startsWith('opaque-')) {
        const aud = token === 'opaque-other' ? 'https://other-api.example.test/' : AUDIENCE
        return json(200, { active: true, iss: issuer, aud, sub: 'user-9', client_id: 'shop', scope: 'orders:read', exp: Math.floor(Date.now() / 1000) + 60, token_type: 'Bearer' })
      }
      return json(200, { active: true, scope: 'orders:read' })
    }
    json(404, {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => server?.close(resolve)))

const now = () => Math.floor(Date.now() / 1000)

/** A token as the provider issues one: at+jwt, iss, aud, sub, exp; `claims` add or replace. */
function sign(key: Key, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  const payload = { iss: issuer, aud: AUDIENCE, sub: 'user-1', iat: now(), exp: now() + 300, scope: 'orders:read', client_id: 'shop', jti: crypto.randomUUID(), ...claims }
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header }).sign(key.privateKey)
}

const verifier = (options: Partial<AccessTokenVerifierOptions> = {}) => createAccessTokenVerifier({ issuer, audience: AUDIENCE, jwksUri: `${issuer}/jwks`, ...options })
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('accepting tokens', () => {
  it('a valid token gives the subject, client, scopes and claims; EdDSA and RS256 keys both verify', async () => {
    const verify = verifier()
    for (const key of [edKey, rsaKey]) {
      const result = await verify(await sign(key, { scope: 'orders:read orders:write' }))
      expect(result).toMatchObject({ ok: true, subject: 'user-1', clientId: 'shop', scopes: ['orders:read', 'orders:write'], roles: [] })
      if (result.ok) expect(result.claims.aud).toBe(AUDIENCE)
    }
  })

  it('takes the token alone or the whole Authorization header value', async () => {
    const verify = verifier()
    const token = await sign(edKey)
    expect((await verify(`Bearer ${token}`)).ok).toBe(true)
    expect((await verify(`bearer   ${token}`)).ok).toBe(true)
    expect(bearerFrom(`Bearer ${token}`)).toBe(token)
    expect(bearerFrom(`Basic dXNlcjpwdw==`)).toBeUndefined()
    expect(bearerFrom(undefined)).toBeUndefined()
    expect(bearerFrom('Bearer ')).toBeUndefined()
  })

  it("the IAM's session tokens: roles from the roles claim, required roles checked", async () => {
    const verify = verifier({ requiredRoles: ['admin'] })
    const session = await sign(edKey, { scope: undefined, client_id: undefined, roles: ['admin'], sid: 's1' })
    expect(await verify(session)).toMatchObject({ ok: true, scopes: [], roles: ['admin'] })
    const member = await sign(edKey, { scope: undefined, roles: ['member'] })
    expect(await verify(member)).toMatchObject({ ok: false, status: 403, reason: 'insufficient_scope' })
  })

  it('finds the keys through the issuer metadata when no jwksUri is given', async () => {
    const verify = createAccessTokenVerifier({ issuer, audience: AUDIENCE })
    expect((await verify(await sign(edKey))).ok).toBe(true)
  })
})

describe('refusing tokens', () => {
  const verify = () => verifier()

  it('no token: 401 missing, with a WWW-Authenticate without an error code', async () => {
    for (const input of [undefined, null, '', '   ', 'Basic dXNlcjpwdw==', 'Bearer', 'Bearer  ']) {
      const result = await verify()(input)
      expect(result).toMatchObject({ ok: false, status: 401, reason: 'missing' })
      expect(wwwAuthenticate(result, { realm: 'orders' })).toBe('Bearer realm="orders"')
    }
  })

  it('not a JWT: 401 malformed', async () => {
    for (const input of ['abc', 'a.b.c', 'Bearer not/a"token', `${b64({ alg: 'EdDSA' })}.${b64({})}`]) {
      expect(await verify()(input), input).toMatchObject({ ok: false, status: 401, reason: 'malformed', error: 'invalid_token' })
    }
  })

  it('expired: 401 expired, with error="invalid_token"', async () => {
    const result = await verify()(await sign(edKey, { exp: now() - 60, iat: now() - 400 }))
    expect(result).toMatchObject({ ok: false, status: 401, reason: 'expired', error: 'invalid_token' })
    expect(wwwAuthenticate(result)).toBe('Bearer error="invalid_token", error_description="The access token has expired"')
  })

  it('within the clock tolerance an expiry just passed still verifies', async () => {
    expect((await verifier({ clockToleranceSeconds: 30 })(await sign(edKey, { exp: now() - 10 }))).ok).toBe(true)
  })

  it('not yet valid: 401 not_yet_valid', async () => {
    expect(await verify()(await sign(edKey, { nbf: now() + 120 }))).toMatchObject({ ok: false, status: 401, reason: 'not_yet_valid' })
  })

  it('another audience: 401 wrong_audience', async () => {
    const token = await new SignJWT({ scope: 'orders:read' })
      .setProtectedHeader({ alg: 'EdDSA', kid: edKey.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience('https://other-api.example.test/')
      .setSubject('user-1')
      .setExpirationTime(now() + 300)
      .sign(edKey.privateKey)
    expect(await verify()(token)).toMatchObject({ ok: false, status: 401, reason: 'wrong_audience' })
  })

  it('another issuer: 401 wrong_issuer', async () => {
    expect(await verify()(await sign(edKey, { iss: 'https://evil.example.test' }))).toMatchObject({ ok: false, status: 401, reason: 'wrong_issuer' })
  })

  it('not an access token (an ID token, typ JWT): 401 wrong_type', async () => {
    expect(await verify()(await sign(edKey, {}, { typ: 'JWT' }))).toMatchObject({ ok: false, status: 401, reason: 'wrong_type' })
  })

  it('a token without exp: 401 malformed', async () => {
    const token = await new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: 'EdDSA', kid: edKey.kid, typ: 'at+jwt' }).setIssuer(issuer).setAudience(AUDIENCE).sign(edKey.privateKey)
    expect(await verify()(token)).toMatchObject({ ok: false, status: 401, reason: 'malformed' })
  })

  it('a key the issuer does not publish: 401 unknown_key', async () => {
    const stranger = await makeKey('stranger', 'EdDSA')
    expect(await verify()(await sign(stranger))).toMatchObject({ ok: false, status: 401, reason: 'unknown_key' })
  })

  it('a tampered payload or signature: 401 bad_signature', async () => {
    const token = await sign(edKey)
    const [header, , signature] = token.split('.')
    const payload = { iss: issuer, aud: AUDIENCE, sub: 'user-1', scope: 'orders:read orders:write admin', exp: now() + 300 }
    expect(await verify()(`${header}.${b64(payload)}.${signature}`)).toMatchObject({ ok: false, status: 401, reason: 'bad_signature' })
    const flipped = Buffer.from(signature!, 'base64url')
    flipped[0]! ^= 1
    expect(await verify()(`${token.split('.').slice(0, 2).join('.')}.${flipped.toString('base64url')}`)).toMatchObject({ reason: 'bad_signature' })
  })

  it('alg none: 401 disallowed_algorithm', async () => {
    const payload = b64({ iss: issuer, aud: AUDIENCE, sub: 'user-1', scope: 'orders:read', exp: now() + 300 })
    for (const header of [{ alg: 'none', typ: 'at+jwt' }, { alg: 'none', kid: edKey.kid, typ: 'at+jwt' }, { alg: 'NONE', typ: 'at+jwt' }]) {
      expect(await verify()(`${b64(header)}.${payload}.`)).toMatchObject({ ok: false, status: 401, reason: 'disallowed_algorithm' })
    }
  })

  it('HS256 signed with the public key bytes (PEM and JWK): 401 disallowed_algorithm', async () => {
    const pem = new TextEncoder().encode(await exportSPKI(rsaKey.publicKey))
    const jwkBytes = new TextEncoder().encode(JSON.stringify(rsaKey.jwk))
    for (const secret of [pem, jwkBytes]) {
      const forged = await new SignJWT({ scope: 'orders:read' })
        .setProtectedHeader({ alg: 'HS256', kid: rsaKey.kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .setSubject('user-1')
        .setExpirationTime(now() + 300)
        .sign(secret)
      expect(await verify()(forged)).toMatchObject({ ok: false, status: 401, reason: 'disallowed_algorithm' })
    }
  })

  it('an allow-list with none or an HMAC algorithm is refused when the verifier is made', () => {
    for (const algorithms of [['none'], ['HS256'], ['RS256', 'HS512']]) {
      expect(() => verifier({ algorithms })).toThrow(/not allowed/)
    }
  })

  it('an algorithm left out of the allow-list: 401 disallowed_algorithm', async () => {
    expect(await verifier({ algorithms: ['EdDSA'] })(await sign(rsaKey))).toMatchObject({ reason: 'disallowed_algorithm' })
  })

  it('keys that cannot be fetched: 503 unavailable, no WWW-Authenticate', async () => {
    const result = await verifier({ jwksUri: `${issuer}/nothing-here` })(await sign(edKey))
    expect(result).toMatchObject({ ok: false, status: 503, reason: 'unavailable' })
    expect(wwwAuthenticate(result)).toBeUndefined()
  })
})

describe('scopes', () => {
  it('a required scope the token lacks: 403 insufficient_scope, with the scope in WWW-Authenticate', async () => {
    const verify = verifier({ requiredScopes: ['orders:write'] })
    const result = await verify(await sign(edKey, { scope: 'orders:read' }))
    expect(result).toMatchObject({ ok: false, status: 403, reason: 'insufficient_scope', error: 'insufficient_scope', scope: 'orders:write' })
    expect(wwwAuthenticate(result)).toBe('Bearer error="insufficient_scope", error_description="The access token lacks the scope orders:write", scope="orders:write"')
  })

  it('a token without a scope claim has no scopes', async () => {
    expect(await verifier({ requiredScopes: ['orders:read'] })(await sign(edKey, { scope: undefined }))).toMatchObject({ status: 403, reason: 'insufficient_scope' })
  })

  it("a call's requiredScopes replace the verifier's", async () => {
    const verify = verifier({ requiredScopes: ['orders:write'] })
    const token = await sign(edKey, { scope: 'orders:read' })
    expect((await verify(token, { requiredScopes: ['orders:read'] })).ok).toBe(true)
    expect((await verify(token, { requiredScopes: [] })).ok).toBe(true)
    expect((await verify(token)).ok).toBe(false)
  })

  it('scopes are matched whole, not as prefixes', async () => {
    expect((await verifier({ requiredScopes: ['orders'] })(await sign(edKey, { scope: 'orders:read' }))).ok).toBe(false)
  })
})

describe('fetching the keys', () => {
  it('once per verifier, not per request', async () => {
    const before = jwksRequests
    const verify = verifier()
    const token = await sign(edKey)
    for (let i = 0; i < 50; i++) expect((await verify(token)).ok).toBe(true)
    expect(jwksRequests - before).toBe(1)
  })

  it('a fetch of its own is used for the metadata and the keys', async () => {
    const asked: string[] = []
    const verify = createAccessTokenVerifier({ issuer, audience: AUDIENCE, fetch: (url, init) => (asked.push(String(url)), fetch(url, init)) })
    expect((await verify(await sign(edKey))).ok).toBe(true)
    expect(asked).toEqual([`${issuer}/.well-known/openid-configuration`, `${issuer}/jwks`])
  })

  it('tokens naming an unknown key do not make it fetch again within the cooldown', async () => {
    const verify = verifier()
    expect((await verify(await sign(edKey))).ok).toBe(true)
    const before = jwksRequests
    const stranger = await makeKey('never-published', 'EdDSA')
    const forged = await sign(stranger)
    for (let i = 0; i < 50; i++) expect(await verify(forged)).toMatchObject({ reason: 'unknown_key' })
    expect(jwksRequests).toBe(before)
  })

  it('a rotated-in key: its first token makes it fetch the keys once, the next 50 fetch nothing', async () => {
    const verify = verifier({ jwks: { cooldownDuration: 50 } })
    expect((await verify(await sign(edKey))).ok).toBe(true)
    const next = await makeKey('ed-2', 'EdDSA')
    published.push(next.jwk)
    try {
      await new Promise((resolve) => setTimeout(resolve, 60))
      const before = jwksRequests
      const token = await sign(next)
      expect((await verify(token)).ok).toBe(true)
      expect(jwksRequests - before).toBe(1)
      for (let i = 0; i < 50; i++) expect((await verify(await sign(next, { jti: String(i) }))).ok).toBe(true)
      expect((await verify(await sign(edKey))).ok).toBe(true)
      expect(jwksRequests - before).toBe(1)
    } finally {
      published.splice(published.indexOf(next.jwk), 1)
    }
  })
})

describe('introspection (RFC 7662)', () => {
  const withIntrospection = (extra: Partial<NonNullable<AccessTokenVerifierOptions['introspection']>> = {}) =>
    verifier({ introspection: { endpoint: `${issuer}/introspect`, clientId: 'orders api', clientSecret: 's3cr3t:+/', ...extra } })

  it('an active token passes; the request is token= with client_secret_basic (id and secret form-encoded)', async () => {
    introspections.length = 0
    const token = await sign(edKey)
    expect((await withIntrospection()(token)).ok).toBe(true)
    expect(introspections).toHaveLength(1)
    expect(new URLSearchParams(introspections[0]!.body).get('token')).toBe(token)
    const basic = Buffer.from(introspections[0]!.authorization!.replace(/^Basic /, ''), 'base64').toString()
    expect(basic).toBe('orders+api:s3cr3t%3A%2B%2F')
  })

  it('an inactive token: 401 revoked, though its signature and claims are fine', async () => {
    const token = await sign(edKey)
    inactive.add(token)
    const result = await withIntrospection()(token)
    expect(result).toMatchObject({ ok: false, status: 401, reason: 'revoked', error: 'invalid_token' })
    expect((await verifier()(token)).ok).toBe(true)
  })

  it('an endpoint that does not answer, or answers an error: 503 unavailable (fail closed)', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const token = await sign(edKey)
    expect(await withIntrospection({ endpoint: `http://127.0.0.1:${port}/introspect` })(token)).toMatchObject({ ok: false, status: 503, reason: 'unavailable' })
    introspectionFails = true
    try {
      expect(await withIntrospection()(token)).toMatchObject({ ok: false, status: 503, reason: 'unavailable' })
    } finally {
      introspectionFails = false
    }
  })

  it('a token refused offline is not sent to the endpoint', async () => {
    introspections.length = 0
    expect(await withIntrospection()(await sign(edKey, { exp: now() - 60 }))).toMatchObject({ reason: 'expired' })
    expect(introspections).toHaveLength(0)
  })

  it('without a cache every request asks; with cacheSeconds an active answer is reused', async () => {
    const token = await sign(edKey)
    introspections.length = 0
    const uncached = withIntrospection()
    await uncached(token)
    await uncached(token)
    expect(introspections).toHaveLength(2)
    introspections.length = 0
    const cached = withIntrospection({ cacheSeconds: 30 })
    await cached(token)
    expect((await cached(token)).ok).toBe(true)
    expect(introspections).toHaveLength(1)
  })

  it('an inactive answer is never cached', async () => {
    const token = await sign(edKey)
    inactive.add(token)
    introspections.length = 0
    const cached = withIntrospection({ cacheSeconds: 30 })
    expect(await cached(token)).toMatchObject({ reason: 'revoked' })
    expect(await cached(token)).toMatchObject({ reason: 'revoked' })
    expect(introspections).toHaveLength(2)
  })

  it('finds the introspection endpoint through the issuer metadata', async () => {
    introspections.length = 0
    const verify = createAccessTokenVerifier({ issuer, audience: AUDIENCE, introspection: { clientId: 'orders-api', clientSecret: 'x' } })
    expect((await verify(await sign(edKey))).ok).toBe(true)
    expect(introspections).toHaveLength(1)
  })

  it('an opaque token is judged by the introspection answer alone: subject, scopes, audience checked', async () => {
    const verify = withIntrospection()
    expect(await verify('opaque-orders', { requiredScopes: ['orders:read'] })).toMatchObject({ ok: true, subject: 'user-9', clientId: 'shop', scopes: ['orders:read'] })
    expect(await verify('opaque-orders', { requiredScopes: ['orders:write'] })).toMatchObject({ status: 403, reason: 'insufficient_scope' })
    expect(await verify('opaque-other')).toMatchObject({ status: 401, reason: 'wrong_audience' })
    inactive.add('opaque-revoked')
    expect(await verify('opaque-revoked')).toMatchObject({ status: 401, reason: 'revoked' })
  })

  it('an opaque token without introspection configured: 401 malformed', async () => {
    expect(await verifier()('opaque-orders')).toMatchObject({ status: 401, reason: 'malformed' })
  })
})
