/**
 * Resource servers against the real OpenID Provider (the gateway's /oidc): the verifier module
 * checks a client-credentials JWT access token for an API offline against the published keys, an
 * opaque one for an API registered with `accessTokenFormat: 'opaque'` at the introspection
 * endpoint, as the client its `introspectionClients` names (and sees its revocation at once), and
 * examples/api (docs/oidc-provider.md, "Protect your API"), run as its own process, answers 200, 401 and 403
 * as RFC 6750 says.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccessTokenVerifier } from '../../verifier/index.js'
import { ROOT } from '../helpers/build'
import { API, Browser, codeFlow, insecure, signUp, startOpStack, type OpStack, type RegisteredClient } from '../helpers/oidc-op'
import { waitUntil } from '../helpers/wait'

/** An API registered for opaque access tokens, which it checks at the introspection endpoint as its client LEDGER_CLIENT. */
const LEDGER = 'https://ledger.example.test/'
const LEDGER_CLIENT = 'ledger-api'

let op: OpStack

beforeAll(async () => {
  op = await startOpStack({
    iamConfig: () => ({
      oidc: {
        resourceServers: [
          { indicator: API, scopes: ['orders:read', 'orders:write'] },
          { indicator: LEDGER, scopes: ['ledger:read'], accessTokenFormat: 'opaque', introspectionClients: [LEDGER_CLIENT] },
        ],
      },
    }),
  })
})
afterAll(() => op?.stop())

async function clientCredentials(rp: RegisteredClient, parameters: Record<string, string>): Promise<string> {
  const response = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, parameters, insecure)
  return (await oauth.processClientCredentialsResponse(op.as, rp.client, response)).access_token
}

describe('the verifier against the OpenID Provider', () => {
  it('verifies a client-credentials JWT access token for the API offline: subject, client and scopes; the keys found through the issuer metadata', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'orders:read orders:write' })
    const token = await clientCredentials(rp, { resource: API, scope: 'orders:read' })
    const verify = createAccessTokenVerifier({ issuer: op.issuer, audience: API, requiredScopes: ['orders:read'] })
    const result = await verify(`Bearer ${token}`)
    expect(result).toMatchObject({ ok: true, subject: rp.client.client_id, clientId: rp.client.client_id, scopes: ['orders:read'] })
    if (result.ok) expect(result.header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' })

    expect(await verify(token, { requiredScopes: ['orders:write'] })).toMatchObject({ ok: false, status: 403, reason: 'insufficient_scope' })
    expect(await createAccessTokenVerifier({ issuer: op.issuer, audience: 'https://other-api.example.test/' })(token)).toMatchObject({ status: 401, reason: 'wrong_audience' })
    expect(await createAccessTokenVerifier({ issuer: `${op.url}/other`, audience: API, jwksUri: op.as.jwks_uri })(token)).toMatchObject({ status: 401, reason: 'wrong_issuer' })
  })

  it("the provider's ID token is no access token: refused for its type even by a verifier whose audience is the client it names", async () => {
    const rp = await op.register({ name: 'Web app', firstParty: true })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, rp, browser)
    const idToken = tokens.id_token!
    const result = await createAccessTokenVerifier({ issuer: op.issuer, audience: rp.client.client_id, algorithms: ['RS256'] })(idToken)
    expect(result).toMatchObject({ ok: false, status: 401, reason: 'wrong_type' })
  })

  it('the provider keeps no record of JWT access tokens: it cannot revoke or introspect them, and a verifier told to introspect one fails closed with 503', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'orders:read' })
    const api = await op.register({ name: 'Orders API', grants: ['client_credentials'] })
    const token = await clientCredentials(rp, { resource: API, scope: 'orders:read' })
    const revocation = await oauth.revocationRequest(op.as, rp.client, rp.auth, token, insecure)
    expect(revocation.status).toBe(400)
    expect(await revocation.json()).toMatchObject({ error: 'unsupported_token_type' })

    const verify = createAccessTokenVerifier({ issuer: op.issuer, audience: API, introspection: { clientId: api.client.client_id, clientSecret: api.secret! } })
    const result = await verify(token)
    expect(result).toMatchObject({ ok: false, status: 503, reason: 'unavailable' })
    if (!result.ok) expect(result.message).toContain('unsupported_token_type')
    // offline it still verifies: such a token lives until it expires
    expect((await verify(token, { introspect: false })).ok).toBe(true)
  })

  it('an API registered for opaque tokens: the token is checked by introspection, and once revoked it is refused at once', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'ledger:read' })
    const api = await op.register({ name: 'Ledger API', grants: ['client_credentials'], clientId: LEDGER_CLIENT })
    const token = await clientCredentials(rp, { resource: LEDGER, scope: 'ledger:read' })
    expect(token.split('.')).toHaveLength(1)
    const verify = createAccessTokenVerifier({
      issuer: op.issuer,
      audience: LEDGER,
      requiredScopes: ['ledger:read'],
      introspection: { clientId: api.client.client_id, clientSecret: api.secret! },
    })
    expect(await verify(`Bearer ${token}`)).toMatchObject({ ok: true, subject: rp.client.client_id, clientId: rp.client.client_id, scopes: ['ledger:read'] })
    // an opaque token for another API is refused for its audience
    expect(await createAccessTokenVerifier({ issuer: op.issuer, audience: API, introspection: { clientId: api.client.client_id, clientSecret: api.secret! } })(token)).toMatchObject({
      status: 401,
      reason: 'wrong_audience',
    })

    const revocation = await oauth.revocationRequest(op.as, rp.client, rp.auth, token, insecure)
    await oauth.processRevocationResponse(revocation)
    expect(await verify(token)).toMatchObject({ ok: false, status: 401, reason: 'revoked' })
  })

  it('wrong API credentials at the introspection endpoint: 503, never a pass', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'ledger:read' })
    const api = await op.register({ name: 'Ledger API', grants: ['client_credentials'] })
    const token = await clientCredentials(rp, { resource: LEDGER, scope: 'ledger:read' })
    const verify = createAccessTokenVerifier({ issuer: op.issuer, audience: LEDGER, introspection: { clientId: api.client.client_id, clientSecret: 'wrong' } })
    expect(await verify(token)).toMatchObject({ ok: false, status: 503, reason: 'unavailable' })
  })
})

describe('examples/api', () => {
  let child: ChildProcess
  let apiUrl: string
  let output = ''

  beforeAll(async () => {
    child = spawn(process.execPath, [join(ROOT, 'examples', 'api', 'server.mjs')], {
      env: { ...process.env, ISSUER: op.issuer, AUDIENCE: API, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await waitUntil(() => /Orders API on (http:\/\/\S+)/.test(output) || child.exitCode !== null, 'the example API to listen')
    const started = /Orders API on (http:\/\/\S+)/.exec(output)
    expect(started, output).not.toBeNull()
    apiUrl = started![1]!
  })
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  })

  it('GET /orders with a token for the API with orders:read: 200 with the subject', async () => {
    const rp = await op.register({ name: 'Shop back office', grants: ['client_credentials'], scope: 'orders:read orders:write' })
    const token = await clientCredentials(rp, { resource: API, scope: 'orders:read' })
    const res = await fetch(`${apiUrl}/orders`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status, output).toBe(200)
    const body = (await res.json()) as { subject: string; scopes: string[]; orders: unknown[] }
    expect(body.subject).toBe(rp.client.client_id)
    expect(body.scopes).toEqual(['orders:read'])
    expect(body.orders.length).toBeGreaterThan(0)
  })

  it('without a token: 401 with a WWW-Authenticate challenge and no error code', async () => {
    const res = await fetch(`${apiUrl}/orders`)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="orders"')
    expect(await res.json()).toMatchObject({ error: 'unauthorized' })
  })

  it('a token that is not valid: 401 error="invalid_token"', async () => {
    const res = await fetch(`${apiUrl}/orders`, { headers: { authorization: 'Bearer not-a-token' } })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="orders", error="invalid_token", error_description="[^"]+"$/)
    expect(await res.json()).toMatchObject({ error: 'invalid_token' })
  })

  it('a token without orders:read: 403 error="insufficient_scope" naming the scope', async () => {
    const rp = await op.register({ name: 'Shop writer', grants: ['client_credentials'], scope: 'orders:read orders:write' })
    const token = await clientCredentials(rp, { resource: API, scope: 'orders:write' })
    const res = await fetch(`${apiUrl}/orders`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(403)
    const challenge = res.headers.get('www-authenticate')!
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toContain('scope="orders:read"')
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope' })
  })
})
