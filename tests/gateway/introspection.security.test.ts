/**
 * Token introspection (RFC 7662) through the front door: the provider tells a client about its own
 * tokens, and a resource server (a client named in its `oidc.resourceServers[].introspectionClients`)
 * about the access tokens issued for it. Any other confidential client, a third-party app or a
 * client-credentials worker, gets what an unknown token gets: the same status, body and headers,
 * so it cannot even learn that the token exists (RFC 7662 section 2.2 lets the server answer
 * inactive to a caller not allowed to know).
 *
 * Both ways an introspection is answered are exercised: the one-statement path
 * (iam/fast/introspection.ts: an opaque access token asked with a client secret and
 * no other hint than `access_token`), and the provider's own (a refresh token, and any token asked
 * with `token_type_hint=refresh_token`, which the one-statement path leaves to the provider).
 */
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API, Browser, codeFlow, insecure, signUp, startOpStack, type OpStack, type RegisteredClient } from '../helpers/oidc-op'
import { moved, scrapeMetrics } from '../helpers/prometheus'

/** An API taking opaque access tokens, which it checks at the introspection endpoint as the client LEDGER_CLIENT. */
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

type Path = 'one-statement' | 'provider'
/** a registered client; `post`: it sends its secret in the body (client_secret_post) */
type Client = RegisteredClient & { post?: boolean }
const PATHS: Path[] = ['one-statement', 'provider']

interface Answer {
  status: number
  headers: Record<string, string>
  body: Record<string, unknown>
}

/** Headers that differ between any two answers (the clock, per-request ids). */
const PER_RESPONSE = new Set(['date', 'x-request-id'])

/** An introspection as `rp`, by its own authentication method, down the chosen path; `extra` headers besides. */
async function introspect(rp: Client, token: string, path: Path, extra: Record<string, string> = {}): Promise<Answer> {
  const form = new URLSearchParams({ token, token_type_hint: path === 'provider' ? 'refresh_token' : 'access_token' })
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...extra }
  if (rp.secret === null) throw new Error('a confidential client')
  if (rp.post) {
    form.set('client_id', rp.client.client_id)
    form.set('client_secret', rp.secret)
  } else {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(rp.client.client_id)}:${encodeURIComponent(rp.secret)}`).toString('base64')}`
  }
  const res = await fetch(op.as.introspection_endpoint!, { method: 'POST', headers, body: form })
  const kept: Record<string, string> = {}
  res.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) kept[name] = value
  })
  return { status: res.status, headers: kept, body: (await res.json()) as Record<string, unknown> }
}

async function clientCredentials(rp: RegisteredClient, parameters: Record<string, string>): Promise<string> {
  const response = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, parameters, insecure)
  return (await oauth.processClientCredentialsResponse(op.as, rp.client, response)).access_token
}

/** oidc-provider keeps offline_access only when the request also says prompt=consent (OIDC Core 11). */
const OFFLINE = { scope: 'openid offline_access', prompt: 'consent' }

let shop: Client
let partner: Client
let worker: Client
let ledger: Client
/** the shop's tokens for a signed-in person: for the ledger (aud), and for userinfo (no aud) */
let forLedger: { access: string; refresh: string }
let forUserinfo: { access: string; refresh: string }
/** the worker's own client-credentials tokens: for the ledger, and with no audience */
let workerForLedger: string
let workerPlain: string

beforeAll(async () => {
  shop = await op.register({ name: 'Shop', firstParty: true, scope: 'openid offline_access ledger:read' })
  // a third-party app, authenticating in the body (client_secret_post) as the one-statement path also reads
  partner = { ...(await op.register({ name: 'Partner app', authMethod: 'client_secret_post' })), post: true }
  worker = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'ledger:read' })
  ledger = await op.register({ name: 'Ledger API', grants: ['client_credentials'], clientId: LEDGER_CLIENT })

  const browser = new Browser(op.url)
  await signUp(browser)
  const ledgerTokens = await codeFlow(op, shop, browser, { ...OFFLINE, scope: 'openid offline_access ledger:read', resource: LEDGER })
  const plainTokens = await codeFlow(op, shop, browser, OFFLINE)
  forLedger = { access: ledgerTokens.access_token, refresh: ledgerTokens.refresh_token! }
  forUserinfo = { access: plainTokens.access_token, refresh: plainTokens.refresh_token! }
  expect(forLedger.refresh && forUserinfo.refresh).toBeTruthy()
  workerForLedger = await clientCredentials(worker, { resource: LEDGER, scope: 'ledger:read' })
  workerPlain = await clientCredentials(worker, {})
})

/** The answer `rp` gets for a token that does not exist, on the same path. */
const unknown = (rp: Client, path: Path) => introspect(rp, `no-such-token-${rp.client.client_id}`, path)

describe('another confidential client learns nothing of a token that is not its own', () => {
  it('a third-party app and a client-credentials worker asking about the shop\'s access and refresh tokens get the unknown token\'s answer, on both paths', async () => {
    const tokens = { 'access token for the ledger': forLedger.access, 'refresh token (ledger)': forLedger.refresh, 'access token for userinfo': forUserinfo.access, 'refresh token (userinfo)': forUserinfo.refresh }
    for (const [callerName, caller] of [['partner', partner], ['worker', worker]] as const) {
      for (const path of PATHS) {
        const expected = await unknown(caller, path)
        expect(expected.body).toEqual({ active: false })
        for (const [tokenName, token] of Object.entries(tokens)) {
          expect({ callerName, path, tokenName, answer: await introspect(caller, token, path) }).toEqual({ callerName, path, tokenName, answer: expected })
        }
      }
    }
  })

  it('the partner asking about the worker\'s client-credentials tokens gets the unknown token\'s answer, on both paths', async () => {
    for (const path of PATHS) {
      const expected = await unknown(partner, path)
      for (const token of [workerForLedger, workerPlain]) expect(await introspect(partner, token, path)).toEqual(expected)
    }
  })

  it('the ledger\'s client learns nothing of the shop\'s refresh tokens or of access tokens for another audience (or none)', async () => {
    for (const path of PATHS) {
      const expected = await unknown(ledger, path)
      for (const token of [forLedger.refresh, forUserinfo.refresh, forUserinfo.access, workerPlain]) {
        expect(await introspect(ledger, token, path)).toEqual(expected)
      }
    }
  })
})

describe('a client is told about its own tokens, and a resource server about the access tokens for it', () => {
  it('the shop introspects its access and refresh tokens: active with their claims, alike on both paths', async () => {
    const fast = await introspect(shop, forLedger.access, 'one-statement')
    expect(fast.status).toBe(200)
    expect(fast.body).toMatchObject({ active: true, client_id: shop.client.client_id, aud: LEDGER, scope: 'ledger:read', sub: expect.any(String), token_type: 'Bearer' })
    expect((await introspect(shop, forLedger.access, 'provider')).body).toEqual(fast.body)

    const plain = await introspect(shop, forUserinfo.access, 'one-statement')
    expect(plain.body).toMatchObject({ active: true, client_id: shop.client.client_id, scope: expect.stringContaining('openid'), sub: fast.body.sub })
    expect((await introspect(shop, forUserinfo.access, 'provider')).body).toEqual(plain.body)

    for (const refresh of [forLedger.refresh, forUserinfo.refresh]) {
      const answer = await introspect(shop, refresh, 'provider')
      expect(answer.body).toMatchObject({ active: true, client_id: shop.client.client_id, sub: fast.body.sub })
      expect(answer.body.token_type).toBeUndefined()
      // no hint: still the provider's (a refresh token is not the one-statement path's)
      expect((await introspect(shop, refresh, 'one-statement')).body).toEqual(answer.body)
    }
  })

  it('the worker introspects its own client-credentials tokens, alike on both paths', async () => {
    for (const token of [workerForLedger, workerPlain]) {
      const fast = await introspect(worker, token, 'one-statement')
      expect(fast.body).toMatchObject({ active: true, client_id: worker.client.client_id })
      expect((await introspect(worker, token, 'provider')).body).toEqual(fast.body)
    }
    expect((await introspect(worker, workerForLedger, 'one-statement')).body).toMatchObject({ aud: LEDGER, scope: 'ledger:read' })
  })

  it('the ledger\'s client introspects the access tokens issued for the ledger, a person\'s and a worker\'s, alike on both paths', async () => {
    const fast = await introspect(ledger, forLedger.access, 'one-statement')
    expect(fast.body).toMatchObject({ active: true, client_id: shop.client.client_id, aud: LEDGER, scope: 'ledger:read', sub: expect.any(String) })
    expect((await introspect(ledger, forLedger.access, 'provider')).body).toEqual(fast.body)
    expect(fast.body).toEqual((await introspect(shop, forLedger.access, 'one-statement')).body)

    const fromWorker = await introspect(ledger, workerForLedger, 'one-statement')
    expect(fromWorker.body).toMatchObject({ active: true, client_id: worker.client.client_id, aud: LEDGER, scope: 'ledger:read' })
    expect((await introspect(ledger, workerForLedger, 'provider')).body).toEqual(fromWorker.body)
  })

  it('a revoked token is inactive for its resource server on both paths', async () => {
    const token = await clientCredentials(worker, { resource: LEDGER, scope: 'ledger:read' })
    expect((await introspect(ledger, token, 'one-statement')).body.active).toBe(true)
    await oauth.processRevocationResponse(await oauth.revocationRequest(op.as, worker.client, worker.auth, token, insecure))
    for (const path of PATHS) expect(await introspect(ledger, token, path)).toEqual(await unknown(ledger, path))
  })
})

describe('a request from a web page (with an Origin) is the provider\'s to answer', () => {
  it('the provider refuses a confidential client\'s cross-origin introspection whatever the token: its own, another\'s or none', async () => {
    const origin = { origin: 'https://partner.example.test' }
    for (const path of PATHS) {
      const expected = await introspect(partner, 'no-such-token', path, origin)
      expect(expected).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
      for (const token of [forLedger.access, forUserinfo.access]) expect(await introspect(partner, token, path, origin)).toEqual(expected)
      expect((await introspect(shop, forLedger.access, path, origin)).status).toBe(400)
    }
  })
})

describe('which path answered', () => {
  /** the IAM's database reads while `run` runs (iam_db_statements_total) */
  async function readsDuring(run: () => Promise<unknown>): Promise<number> {
    const before = await scrapeMetrics(op.iam.url)
    await run()
    return moved(before, await scrapeMetrics(op.iam.url), 'iam_db_statements_total', { kind: 'read' })
  }
  const N = 3
  const times = (caller: Client, token: string, path: Path) => async () => {
    for (let i = 0; i < N; i++) await introspect(caller, token, path)
  }

  it('the one-statement path answers an access token in its one read, refused or not; the provider\'s path reads more', async () => {
    expect(await readsDuring(times(partner, forLedger.access, 'one-statement'))).toBe(N)
    expect(await readsDuring(times(worker, forUserinfo.access, 'one-statement'))).toBe(N)
    expect(await readsDuring(times(shop, forLedger.access, 'one-statement'))).toBe(N)
    expect(await readsDuring(times(ledger, forLedger.access, 'one-statement'))).toBe(N)
    // a hint other than access_token: the provider's own path (its client read, then its token lookups)
    expect(await readsDuring(times(partner, forLedger.access, 'provider'))).toBeGreaterThan(N)
    expect(await readsDuring(times(ledger, forLedger.access, 'provider'))).toBeGreaterThan(N)
  })
})
