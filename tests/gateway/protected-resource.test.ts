/**
 * A resource server on node:http protected by the verifier's createProtectedResource, with tokens
 * from our OpenID Provider: a client that meets its 401 follows `resource_metadata` to the RFC 9728
 * document, from it to the provider, and asks for a token with `resource` = the document's
 * resource (RFC 8707); the server takes that token and refuses one meant for another API. DPoP
 * (RFC 9449): the provider binds a token to the key of the proof sent with the token request
 * (oauth4webapi's DPoP handle), and the server accepts it only with a fresh proof by that key.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProtectedResource, type ProtectedResource } from '../../verifier/index.js'
import { API, insecure, startOpStack, type OpStack, type RegisteredClient } from '../helpers/oidc-op'

let op: OpStack
let rs: Server
let resourceUrl: string
let resource: ProtectedResource

beforeAll(async () => {
  rs = createServer(async (req, res) => {
    if (req.url === resource.metadataPath) {
      const answer = resource.metadataResponse()
      return void res.writeHead(answer.status, answer.headers).end(answer.body)
    }
    const result = await resource.verifyRequest(req)
    if (!result.ok) {
      const answer = resource.failureResponse(result)
      return void res.writeHead(answer.status, answer.headers).end(answer.body)
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ subject: result.subject, scopes: result.scopes, bound: result.claims.cnf !== undefined }))
  })
  await new Promise<void>((resolve) => rs.listen(0, '127.0.0.1', resolve))
  resourceUrl = `http://127.0.0.1:${(rs.address() as AddressInfo).port}/notes`
  op = await startOpStack({
    iamConfig: () => ({ oidc: { resourceServers: [{ indicator: API, scopes: ['orders:read'] }, { indicator: resourceUrl, scopes: ['notes:read'] }] } }),
  })
  resource = createProtectedResource({ resource: resourceUrl, authorizationServers: [op.issuer], scopesSupported: ['notes:read'], requiredScopes: ['notes:read'], dpop: {} })
}, 240_000)

afterAll(async () => {
  await op?.stop()
  await new Promise((resolve) => rs?.close(resolve))
})

async function worker(): Promise<RegisteredClient> {
  return op.register({ name: 'Notes worker', grants: ['client_credentials'], scope: 'notes:read orders:read' })
}

async function tokenFor(rp: RegisteredClient, target: string, scope: string, DPoP?: oauth.DPoPHandle) {
  const response = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, { resource: target, scope }, { ...insecure, DPoP })
  return oauth.processClientCredentialsResponse(op.as, rp.client, response)
}

async function call(accessToken: string, DPoP?: oauth.DPoPHandle, sent?: Headers[]) {
  try {
    const res = await oauth.protectedResourceRequest(accessToken, 'GET', new URL(resourceUrl), new Headers(), null, {
      ...insecure,
      DPoP,
      [oauth.customFetch]: (url, init) => {
        sent?.push(new Headers(init.headers))
        return fetch(url, init as RequestInit)
      },
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, challenges: [] as oauth.WWWAuthenticateChallenge[] }
  } catch (error) {
    if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error
    return { status: error.response.status, body: {}, challenges: error.cause }
  }
}

describe('a protected resource with tokens from the provider', () => {
  it('a 401 leads through resource_metadata to the provider, whose token for the resource is accepted', async () => {
    const first = await fetch(resourceUrl)
    expect(first.status).toBe(401)
    const challenge = first.headers.get('www-authenticate') ?? ''
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1]
    expect(metadataUrl).toBe(resource.metadataUrl)
    expect(challenge).toContain('scope="notes:read"')

    const metadata = (await (await fetch(metadataUrl!)).json()) as { resource: string; authorization_servers: string[]; dpop_signing_alg_values_supported: string[] }
    expect(metadata.resource).toBe(resourceUrl)
    expect(metadata.authorization_servers).toEqual([op.issuer])
    const issuer = new URL(metadata.authorization_servers[0]!)
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }))
    // the provider and the resource agree on a DPoP algorithm
    expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(as.dpop_signing_alg_values_supported ?? ['(none announced)']))

    const tokens = await tokenFor(await worker(), metadata.resource, 'notes:read')
    expect(tokens.token_type).toBe('bearer')
    expect(await call(tokens.access_token)).toMatchObject({ status: 200, body: { scopes: ['notes:read'], bound: false } })
  })

  it('a token the provider issued for another API is refused: invalid_token with the resource metadata to start again from', async () => {
    const tokens = await tokenFor(await worker(), API, 'orders:read')
    const { status, challenges } = await call(tokens.access_token)
    expect(status).toBe(401)
    expect(challenges[0]).toMatchObject({ scheme: 'bearer', parameters: { error: 'invalid_token', resource_metadata: resource.metadataUrl } })
  })
})

describe('DPoP-bound tokens from the provider', () => {
  it('the token request with a proof gets a DPoP token bound to that key; the resource takes it only with a proof by that key, once per proof', async () => {
    const rp = await worker()
    const keyPair = await oauth.generateKeyPair('ES256')
    const DPoP = oauth.DPoP(rp.client, keyPair)
    const tokens = await tokenFor(rp, resourceUrl, 'notes:read', DPoP)
    expect(tokens.token_type).toBe('dpop')
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as { cnf?: { jkt?: string } }
    expect(claims.cnf?.jkt).toBe(await DPoP.calculateThumbprint())

    // with its proof: accepted
    const sent: Headers[] = []
    expect(await call(tokens.access_token, DPoP, sent)).toMatchObject({ status: 200, body: { bound: true } })

    // without a proof, as a plain Bearer token: refused
    const bare = await call(tokens.access_token)
    expect(bare.status).toBe(401)
    expect(bare.challenges.find((c) => c.scheme === 'dpop')?.parameters.error).toBe('invalid_token')

    // with a proof by another key: refused
    const thief = oauth.DPoP(rp.client, await oauth.generateKeyPair('ES256'))
    const stolen = await call(tokens.access_token, thief)
    expect(stolen.status).toBe(401)
    expect(stolen.challenges.find((c) => c.scheme === 'dpop')?.parameters.error).toBe('invalid_dpop_proof')

    // the accepted request sent again as it was: its proof is refused the second time
    const replay = await fetch(resourceUrl, { headers: { authorization: sent[0]!.get('authorization')!, dpop: sent[0]!.get('dpop')! } })
    expect(replay.status).toBe(401)
    expect(replay.headers.get('www-authenticate')).toContain('The DPoP proof was already used')
  })

  it('a proof whose iat is off gets use_dpop_nonce with a DPoP-Nonce; the client signs the nonce and gets its token', async () => {
    const rp = await worker()
    // a client whose clock is ten minutes behind: every proof it signs is stale
    const DPoP = oauth.DPoP(rp.client, await oauth.generateKeyPair('ES256'), {
      [oauth.modifyAssertion]: (_header, payload) => {
        payload.iat = Math.floor(Date.now() / 1000) - 600
      },
    })
    const first = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, { resource: resourceUrl, scope: 'notes:read' }, { ...insecure, DPoP })
    expect(first.status).toBe(400)
    expect(first.headers.get('dpop-nonce')).toBeTruthy()
    const refusal = await oauth.processClientCredentialsResponse(op.as, rp.client, first).catch((error: unknown) => error)
    expect(oauth.isDPoPNonceError(refusal)).toBe(true)
    // the handle kept the nonce; with it the stale iat no longer matters (RFC 9449 section 8)
    const second = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, { resource: resourceUrl, scope: 'notes:read' }, { ...insecure, DPoP })
    const tokens = await oauth.processClientCredentialsResponse(op.as, rp.client, second)
    expect(tokens.token_type).toBe('dpop')
  })

  it('the provider refuses a token request whose proof is replayed (its jti seen), and announces its DPoP algorithms', async () => {
    expect(op.as.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']))
    const rp = await worker()
    const DPoP = oauth.DPoP(rp.client, await oauth.generateKeyPair('ES256'))
    const sent: Headers[] = []
    const first = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, { resource: resourceUrl, scope: 'notes:read' }, {
      ...insecure,
      DPoP,
      [oauth.customFetch]: (url, init) => {
        sent.push(new Headers(init.headers))
        return fetch(url, init as RequestInit)
      },
    })
    expect(first.status).toBe(200)
    const again = await fetch(op.as.token_endpoint!, { method: 'POST', headers: sent[0]!, body: new URLSearchParams({ grant_type: 'client_credentials', resource: resourceUrl, scope: 'notes:read' }) })
    expect(again.status).toBe(400)
    // the library answers a replay as invalid_grant with its generic description
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' })
    // the same request with a fresh proof by the same key goes through: only the proof was refused
    const fresh = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, { resource: resourceUrl, scope: 'notes:read' }, { ...insecure, DPoP })
    expect(fresh.status).toBe(200)
  })
})
