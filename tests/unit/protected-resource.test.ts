/**
 * verifier/ as a protected resource (createProtectedResource): the RFC 9728 metadata and where it
 * is published, the challenges of RFC 6750 / 9728 / 9449, and DPoP-bound tokens (RFC 9449) checked
 * against their proofs. A local node:http server is both the token issuer (its key set) and the
 * resource; tokens are signed here, proofs made by oauth4webapi's DPoP handle (and by jose here only
 * where a proof must be wrong in one way that a correct client never produces).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createProtectedResource,
  credentialsFrom,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  wwwAuthenticate,
  type AccessTokenFailure,
  type ProtectedResource,
} from '../../verifier/index.js'

let server: Server
let base: string
let resource: ProtectedResource
let signingKey: { privateKey: CryptoKey; jwk: JWK }

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true })
  signingKey = { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' } }
  server = createServer(async (req, res) => {
    if (req.url === '/jwks') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [signingKey.jwk] }))
    if (req.url === resource.metadataPath) {
      const answer = resource.metadataResponse()
      return void res.writeHead(answer.status, answer.headers).end(answer.body)
    }
    const result = await resource.verifyRequest(req)
    if (result.ok) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ subject: result.subject }))
    const answer = resource.failureResponse(result)
    res.writeHead(answer.status, answer.headers).end(answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  resource = createProtectedResource({
    resource: `${base}/mcp`,
    authorizationServers: [base],
    jwksUri: `${base}/jwks`,
    scopesSupported: ['notes:read'],
    requiredScopes: ['notes:read'],
    algorithms: ['ES256'],
    dpop: {},
  })
})
afterAll(() => new Promise((resolve) => server?.close(resolve)))

const now = () => Math.floor(Date.now() / 1000)

function accessToken(claims: Record<string, unknown> = {}): Promise<string> {
  const payload = { iss: base, aud: `${base}/mcp`, sub: 'person-1', client_id: 'agent', scope: 'notes:read', iat: now(), exp: now() + 300, jti: crypto.randomUUID(), ...claims }
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' }).sign(signingKey.privateKey)
}

/** A DPoP key and oauth4webapi's handle for it. */
async function dpopKey() {
  const keyPair = await oauth.generateKeyPair('ES256')
  const handle = oauth.DPoP({}, keyPair)
  return { keyPair, handle, jkt: await handle.calculateThumbprint() }
}

/** The request as oauth4webapi sends it, with the proofs it made recorded; a refusal as its status and parsed challenges. */
async function call(token: string, options: { dpop?: oauth.DPoPHandle; url?: string; method?: string; sent?: Headers[] } = {}) {
  const headers = new Headers()
  try {
    const res = await oauth.protectedResourceRequest(token, options.method ?? 'GET', new URL(options.url ?? `${base}/mcp`), headers, null, {
      DPoP: options.dpop,
      [oauth.allowInsecureRequests]: true,
      [oauth.customFetch]: (url, init) => {
        options.sent?.push(new Headers(init.headers))
        return fetch(url, init as RequestInit)
      },
    })
    return { status: res.status, challenges: [] as oauth.WWWAuthenticateChallenge[] }
  } catch (error) {
    if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error
    return { status: error.response.status, challenges: error.cause }
  }
}

describe('where the metadata is and what it says (RFC 9728)', () => {
  it('inserts the well-known path between the host and the resource path, dropping a lone trailing slash and keeping the query', () => {
    expect(protectedResourceMetadataUrl('https://api.example.com/')).toBe('https://api.example.com/.well-known/oauth-protected-resource')
    expect(protectedResourceMetadataUrl('https://api.example.com')).toBe('https://api.example.com/.well-known/oauth-protected-resource')
    expect(protectedResourceMetadataUrl('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp')
    expect(protectedResourceMetadataUrl('https://mcp.example.com/tenant/mcp/')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp')
    expect(protectedResourceMetadataUrl('https://mcp.example.com/mcp?v=2')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp?v=2')
  })

  it('refuses a resource identifier with a fragment, over plain http off loopback, or not a URL', () => {
    expect(() => protectedResourceMetadataUrl('https://api.example.com/#x')).toThrow(/fragment/)
    expect(() => protectedResourceMetadataUrl('http://api.example.com/')).toThrow(/https/)
    expect(() => protectedResourceMetadataUrl('api.example.com')).toThrow(/absolute URL/)
    expect(protectedResourceMetadataUrl('http://127.0.0.1:8080/mcp')).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp')
  })

  it('names the resource unchanged, its authorization servers, scopes and the header as the only bearer method; DPoP only when asked', () => {
    expect(protectedResourceMetadata({ resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://id.example.com/oidc'], scopesSupported: ['notes:read'] })).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://id.example.com/oidc'],
      scopes_supported: ['notes:read'],
      bearer_methods_supported: ['header'],
    })
    expect(
      protectedResourceMetadata({ resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://id.example.com/oidc'], dpop: { algorithms: ['ES256'], required: true } }),
    ).toMatchObject({ dpop_signing_alg_values_supported: ['ES256'], dpop_bound_access_tokens_required: true })
    expect(() => protectedResourceMetadata({ resource: 'https://mcp.example.com/mcp', authorizationServers: [] })).toThrow(/authorizationServers/)
  })

  it('is served at its well-known URL as JSON, for the resource this server protects', async () => {
    const res = await fetch(protectedResourceMetadataUrl(`${base}/mcp`))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: ['notes:read'],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256'],
    })
  })
})

describe('the challenges (RFC 6750 section 3, RFC 9728 section 5.1, RFC 9449 section 7.1)', () => {
  const missing: AccessTokenFailure = { ok: false, status: 401, reason: 'missing', message: 'An access token is required' }

  it('without a token: resource_metadata and the scopes to ask for, and no error code', () => {
    expect(wwwAuthenticate(missing, { resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp', scope: 'notes:read' })).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="notes:read"',
    )
  })

  it('a DPoP failure puts its error on the DPoP challenge, after the Bearer one; DPoP required leaves the Bearer challenge out', () => {
    const badProof: AccessTokenFailure = { ok: false, status: 401, reason: 'invalid_dpop_proof', error: 'invalid_dpop_proof', message: 'The DPoP proof was already used' }
    expect(wwwAuthenticate(badProof, { resourceMetadata: 'https://r/.well-known/oauth-protected-resource', dpop: { algorithms: ['ES256', 'EdDSA'] } })).toBe(
      'Bearer resource_metadata="https://r/.well-known/oauth-protected-resource", DPoP algs="ES256 EdDSA", error="invalid_dpop_proof", error_description="The DPoP proof was already used"',
    )
    expect(wwwAuthenticate(missing, { resourceMetadata: 'https://r/.well-known/oauth-protected-resource', dpop: { algorithms: ['ES256'], required: true } })).toBe(
      'DPoP resource_metadata="https://r/.well-known/oauth-protected-resource", algs="ES256"',
    )
  })

  it('escapes quotes and drops control characters in quoted values, and gives no challenge for a 503', () => {
    const weird: AccessTokenFailure = { ok: false, status: 401, reason: 'malformed', error: 'invalid_token', message: 'a "quoted"\r\nline' }
    expect(wwwAuthenticate(weird)).toBe('Bearer error="invalid_token", error_description="a \\"quoted\\"line"')
    expect(wwwAuthenticate({ ok: false, status: 503, reason: 'unavailable', message: 'down' })).toBeUndefined()
  })

  it('reads the Bearer and DPoP schemes of an Authorization header, and nothing else', () => {
    expect(credentialsFrom('DPoP abc.def.ghi')).toEqual({ scheme: 'dpop', token: 'abc.def.ghi' })
    expect(credentialsFrom('bearer abc')).toEqual({ scheme: 'bearer', token: 'abc' })
    expect(credentialsFrom('Basic abc')).toBeUndefined()
    expect(credentialsFrom('DPoP')).toBeUndefined()
  })

  it('a request without a token is answered 401 with resource_metadata and scope, in challenges a client library parses', async () => {
    const res = await fetch(`${base}/mcp`)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${resource.metadataUrl}", scope="notes:read", DPoP algs="ES256 EdDSA Ed25519 PS256 RS256"`)
    // as a client library parses it (two challenges, each with its parameters)
    const { challenges } = await call('not-a-token')
    expect(challenges.map((c) => c.scheme)).toEqual(['bearer', 'dpop'])
    expect(challenges[0]!.parameters).toMatchObject({ resource_metadata: resource.metadataUrl, scope: 'notes:read', error: 'invalid_token' })
  })
})

describe('tokens for another resource', () => {
  it('a token whose audience is another resource (RFC 8707) is refused with invalid_token', async () => {
    const { status, challenges } = await call(await accessToken({ aud: `${base}/other` }))
    expect(status).toBe(401)
    expect(challenges[0]).toMatchObject({ scheme: 'bearer', parameters: { error: 'invalid_token', resource_metadata: resource.metadataUrl } })
  })

  it('an unbound token with the right audience and scope is accepted as Bearer', async () => {
    expect((await call(await accessToken())).status).toBe(200)
  })
})

describe('DPoP-bound tokens (RFC 9449)', () => {
  it('are accepted with a proof by the key they are bound to', async () => {
    const key = await dpopKey()
    const token = await accessToken({ cnf: { jkt: key.jkt } })
    expect((await call(token, { dpop: key.handle })).status).toBe(200)
  })

  it('are refused without a proof: as Bearer with invalid_token on the DPoP challenge', async () => {
    const key = await dpopKey()
    const { status, challenges } = await call(await accessToken({ cnf: { jkt: key.jkt } }))
    expect(status).toBe(401)
    expect(challenges.find((c) => c.scheme === 'dpop')).toMatchObject({ parameters: { error: 'invalid_token' } })
  })

  it('are refused with a proof by another key', async () => {
    const bound = await dpopKey()
    const other = await dpopKey()
    const { status, challenges } = await call(await accessToken({ cnf: { jkt: bound.jkt } }), { dpop: other.handle })
    expect(status).toBe(401)
    expect(challenges.find((c) => c.scheme === 'dpop')).toMatchObject({ parameters: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof is signed by another key than the one the token is bound to' } })
  })

  it('refuse a proof used a second time', async () => {
    const key = await dpopKey()
    const token = await accessToken({ cnf: { jkt: key.jkt } })
    const sent: Headers[] = []
    expect((await call(token, { dpop: key.handle, sent })).status).toBe(200)
    const replay = await fetch(`${base}/mcp`, { headers: { authorization: sent[0]!.get('authorization')!, dpop: sent[0]!.get('dpop')! } })
    expect(replay.status).toBe(401)
    expect(replay.headers.get('www-authenticate')).toContain('error="invalid_dpop_proof", error_description="The DPoP proof was already used"')
  })

  it('refuse a proof made for another URL, another method or another token', async () => {
    const key = await dpopKey()
    const token = await accessToken({ cnf: { jkt: key.jkt } })
    const sent: Headers[] = []
    await call(await accessToken({ cnf: { jkt: key.jkt } }), { dpop: key.handle, sent, url: `${base}/elsewhere` }).catch(() => undefined)
    const otherUrl = await fetch(`${base}/mcp`, { headers: { authorization: `DPoP ${token}`, dpop: sent[0]!.get('dpop')! } })
    expect(otherUrl.headers.get('www-authenticate')).toContain('The DPoP proof is for another URL')

    const sentPost: Headers[] = []
    await call(token, { dpop: key.handle, sent: sentPost, method: 'POST' })
    const otherMethod = await fetch(`${base}/mcp`, { headers: { authorization: `DPoP ${token}`, dpop: sentPost[0]!.get('dpop')! } })
    expect(otherMethod.headers.get('www-authenticate')).toContain('The DPoP proof is for another HTTP method')

    const sentOther: Headers[] = []
    await call(await accessToken({ cnf: { jkt: key.jkt } }), { dpop: key.handle, sent: sentOther })
    const otherToken = await fetch(`${base}/mcp`, { headers: { authorization: `DPoP ${token}`, dpop: sentOther[0]!.get('dpop')! } })
    expect(otherToken.headers.get('www-authenticate')).toContain('The DPoP proof is for another access token')
  })

  it('refuse a proof whose iat is outside the window, and an unbound token sent with the DPoP scheme', async () => {
    const key = await dpopKey()
    const token = await accessToken({ cnf: { jkt: key.jkt } })
    const jwk = await exportJWK(key.keyPair.publicKey)
    expect(await calculateJwkThumbprint(jwk)).toBe(key.jkt)
    const ath = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString('base64url')
    const stale = await new SignJWT({ htm: 'GET', htu: `${base}/mcp`, iat: now() - 600, jti: crypto.randomUUID(), ath })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(key.keyPair.privateKey)
    const res = await fetch(`${base}/mcp`, { headers: { authorization: `DPoP ${token}`, dpop: stale } })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('The DPoP proof is not recent')

    const unbound = await call(await accessToken(), { dpop: key.handle })
    expect(unbound.status).toBe(401)
    expect(unbound.challenges[0]).toMatchObject({ scheme: 'bearer', parameters: { error: 'invalid_token' } })
  })

  it('with dpop.required, an unbound token is refused and only the DPoP challenge is given', async () => {
    const strict = createProtectedResource({ resource: `${base}/mcp`, authorizationServers: [base], jwksUri: `${base}/jwks`, algorithms: ['ES256'], dpop: { required: true, algorithms: ['ES256'] } })
    const result = await strict.verifyRequest({ method: 'GET', url: '/mcp', headers: { authorization: `Bearer ${await accessToken()}` } })
    expect(result).toMatchObject({ ok: false, status: 401, reason: 'dpop_required' })
    expect(strict.challenge(result)).toMatch(/^DPoP resource_metadata="[^"]+", algs="ES256", error="invalid_token"/)
    expect(strict.metadata.dpop_bound_access_tokens_required).toBe(true)
  })
})
