/**
 * The two ways an introspection (RFC 7662) is answered give the same answer to every request: the
 * one-statement path (iam/fast/introspection.ts, on by default) and oidc-provider's
 * own endpoint alone (`oidc.fastIntrospection: false`). Two IAM instances answer from the same
 * rows: A, the stack's, with the default, and B, started with the switch off. On PostgreSQL B
 * shares A's database; on PGlite (one process's own) B starts from a copy of A's database taken
 * once every fixture exists (test-build/routes/__test/database-dump.get.ts), as introspection
 * writes nothing.
 *
 * The cases are generated: token kinds and states (opaque access tokens from the code flow, for an
 * API or for userinfo; client-credentials tokens; refresh tokens; a JWT access token; expired,
 * revoked, of a revoked grant, of a replayed code, a rotated refresh token; unknown, empty, absent)
 * x callers (the token's client, another first-party client, a third-party app, a worker, a
 * resource server, a public client, an unknown client) x token_type_hint; then the ways of
 * authenticating, the request's shape (content types, Authorization header forms) and duplicate
 * or unknown parameters. Each case goes to A and to B as the gateway forwards it
 * (server/utils/oidc-forward.ts: the same bytes, signed), and the status, every header but the
 * per-response `date` and `x-request-id`, and the body byte for byte must be the same.
 */
import { randomBytes } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIamClient, type IamClient } from '../../iam/client/iam-client'
import { hmac } from '../e2e/auth-stack'
import type { IamServer } from '../helpers/iam-server'
import { API, authorizationUrl, Browser, codeFlow, codeParams, insecure, redeem, refresh, signUp, startOpStack, startSecondIam, walkAuthorization, type OpStack, type RegisteredClient } from '../helpers/oidc-op'
import { moved, scrapeMetrics } from '../helpers/prometheus'

/** An API taking opaque access tokens, which it introspects as the client LEDGER_CLIENT. */
const LEDGER = 'https://ledger.example.test/'
const LEDGER_CLIENT = 'ledger-api'
/** An API whose opaque access tokens live one second: the expired state without moving a clock the provider does not read. */
const SHORT = 'https://short.example.test/'
const SHORT_TTL_MS = 1000
const INTROSPECTION = '/oidc/token/introspection'
const FORM = 'application/x-www-form-urlencoded'
/** A matrix test's bound: hundreds of requests to each IAM, on a machine that may be loaded. */
const MATRIX_TIMEOUT_MS = 120_000
/** Headers that differ between any two answers (the clock, the request id). */
const PER_RESPONSE = new Set(['date', 'x-request-id'])

const secret = () => randomBytes(32).toString('base64url')

let op: OpStack
let second: IamServer
const paths: { fast?: IamClient; provider?: IamClient } = {}

type Client = RegisteredClient & { post?: boolean }
const callers: Record<string, Client> = {}
/** token name -> value, every kind and state */
const tokens: Record<string, string> = {}
let shortIssuedAt = 0

beforeAll(async () => {
  // set, not generated per data directory: B opens the same sealed client secrets and cookie keys
  const secrets = { codes: secret(), links: secret(), totpKeys: [{ id: 'k1', key: secret() }] }
  op = await startOpStack({
    iamConfig: () => ({
      secrets,
      oidc: {
        resourceServers: [
          { indicator: API, scopes: ['orders:read'] },
          { indicator: LEDGER, scopes: ['ledger:read'], accessTokenFormat: 'opaque', introspectionClients: [LEDGER_CLIENT] },
          { indicator: SHORT, scopes: ['short:read'], accessTokenFormat: 'opaque', accessTokenTtlMs: SHORT_TTL_MS },
        ],
      },
    }),
  })
  await makeFixtures()
  // IAM B: A's configuration with the switch off, on A's rows (introspection writes nothing)
  second = await startSecondIam(op, 'introspection-equivalence', (config) => {
    config.oidc.fastIntrospection = false
  })
  paths.fast = createIamClient({ baseUrl: op.iam.url, hmac })
  paths.provider = createIamClient({ baseUrl: second.url, hmac })
  // the one-second tokens have expired by now, or within a second
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, shortIssuedAt + 2 * SHORT_TTL_MS + 100 - Date.now())))
}, 240_000)

afterAll(async () => {
  await second?.stop()
  await op?.stop()
})

const clientCredentials = async (rp: RegisteredClient, parameters: Record<string, string>) =>
  (await oauth.processClientCredentialsResponse(op.as, rp.client, await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, parameters, insecure))).access_token

const revoke = async (rp: RegisteredClient, token: string) => oauth.processRevocationResponse(await oauth.revocationRequest(op.as, rp.client, rp.auth, token, insecure))

/** oidc-provider keeps offline_access only when the request also says prompt=consent (OIDC Core 11). */
const OFFLINE = { scope: 'openid offline_access', prompt: 'consent' }

/** A browser signed in to an account of its own. */
async function signedIn(): Promise<Browser> {
  const browser = new Browser(op.url)
  await signUp(browser)
  return browser
}

async function makeFixtures(): Promise<void> {
  callers.shop = await op.register({ name: 'Shop', firstParty: true, scope: 'openid offline_access ledger:read short:read' })
  // the IAM's clients have no owner: "another client of the same operator" is another first-party one
  callers.sibling = await op.register({ name: 'Shop admin', firstParty: true })
  callers.partner = { ...(await op.register({ name: 'Partner app', authMethod: 'client_secret_post' })), post: true }
  callers.worker = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'ledger:read short:read orders:read' })
  callers.ledger = await op.register({ name: 'Ledger API', grants: ['client_credentials'], clientId: LEDGER_CLIENT })
  callers.mobile = await op.register({ name: 'Mobile app', public: true, firstParty: true })
  const { shop, worker, mobile } = callers as Record<string, Client>

  const browser = await signedIn()
  // expired: issued first, so the rest of the set-up outlives them
  shortIssuedAt = Date.now()
  tokens['client credentials, expired'] = await clientCredentials(worker!, { resource: SHORT, scope: 'short:read' })
  tokens['code access token, expired'] = (await codeFlow(op, shop!, browser, { scope: 'openid short:read', resource: SHORT })).access_token

  const forLedger = await codeFlow(op, shop!, browser, { ...OFFLINE, scope: 'openid offline_access ledger:read', resource: LEDGER })
  tokens['code access token for an API'] = forLedger.access_token
  tokens['refresh token'] = forLedger.refresh_token!
  const plain = await codeFlow(op, shop!, browser, OFFLINE)
  tokens['code access token for userinfo'] = plain.access_token
  tokens['refresh token for userinfo'] = plain.refresh_token!
  tokens['client credentials for an API'] = await clientCredentials(worker!, { resource: LEDGER, scope: 'ledger:read' })
  tokens['client credentials'] = await clientCredentials(worker!, {})
  tokens['JWT access token'] = await clientCredentials(worker!, { resource: API, scope: 'orders:read' })
  expect(tokens['JWT access token']!.split('.')).toHaveLength(3)

  // revoked: a client-credentials token; a code flow's access token, then its refresh token (which
  // ends the grant, RFC 7009 section 2.1) with a second access token of that grant
  const revokedCc = await clientCredentials(worker!, {})
  await revoke(worker!, revokedCc)
  tokens['client credentials, revoked'] = revokedCc
  // a first-party client's flows in one browser session share one grant: the grants ended here
  // are each a session of their own, so the live tokens above keep theirs
  const ended = await codeFlow(op, shop!, await signedIn(), OFFLINE)
  const again = await refresh(op, shop!, ended.refresh_token!)
  await revoke(shop!, ended.access_token)
  await revoke(shop!, ended.refresh_token!)
  tokens['code access token, revoked'] = ended.access_token
  tokens['refresh token, revoked'] = ended.refresh_token!
  tokens['access token of a revoked grant'] = again.access_token

  // a code redeemed twice: the replay ends the grant of the first redemption (RFC 9700 section 4.5)
  const start = await authorizationUrl(op, shop!, OFFLINE)
  const walk = await walkAuthorization(await signedIn(), start.url, shop!.redirectUri)
  const params = codeParams(op, shop!, walk.callback!, start.state)
  const replayed = await redeem(op, shop!, params, start.verifier, start.nonce)
  await expect(redeem(op, shop!, params, start.verifier, start.nonce)).rejects.toMatchObject({ error: 'invalid_grant' })
  tokens['access token of a replayed code'] = replayed.access_token
  tokens['refresh token of a replayed code'] = replayed.refresh_token!

  // a public client's refresh token is rotated on use: the spent one is stored as consumed
  const mobileTokens = await codeFlow(op, mobile!, browser, OFFLINE)
  const rotated = await refresh(op, mobile!, mobileTokens.refresh_token!)
  tokens['public client access token'] = rotated.access_token
  tokens['public client refresh token'] = rotated.refresh_token!
  tokens['refresh token, rotated (consumed)'] = mobileTokens.refresh_token!

  tokens['unknown value'] = randomBytes(32).toString('base64url')
  tokens['longer than any token'] = 'x'.repeat(200)
  tokens['empty'] = ''
}

// ---------------------------------------------------------------------------------------------
// Requests

type Pairs = Array<[string, string]>

interface Case {
  name: string
  headers: Record<string, string>
  /** the raw form body */
  body: string
}

const form = (pairs: Pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
const base64 = (text: string) => Buffer.from(text).toString('base64')
/** RFC 6749 section 2.3.1: id and secret form-encoded, then Basic (RFC 7617) */
const basicOf = (id: string, secretValue: string) => `Basic ${base64(`${encodeURIComponent(id)}:${encodeURIComponent(secretValue)}`)}`
/** every byte percent-encoded: a decoder that skips the step sees other credentials */
const everyByteEncoded = (text: string) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')

interface Auth {
  name: string
  headers?: Record<string, string>
  params?: Pairs
}

/** How `client` authenticates as registered: Basic, in the body, or only its id (a public client). */
function registeredAuth(client: Client): Auth {
  const id = client.client.client_id
  if (client.secret === null) return { name: 'client_id only (public client)', params: [['client_id', id]] }
  if (client.post) return { name: 'client_secret_post', params: [['client_id', id], ['client_secret', client.secret]] }
  return { name: 'client_secret_basic', headers: { authorization: basicOf(id, client.secret) } }
}

const UNKNOWN_CLIENT: Auth = { name: 'unknown client (Basic)', headers: { authorization: basicOf('no-such-client', 'some-secret') } }

function makeCase(name: string, auth: Auth, params: Pairs, headers: Record<string, string> = { 'content-type': FORM }): Case {
  return { name: `${name} [${auth.name}]`, headers: { ...headers, ...auth.headers }, body: form([...params, ...(auth.params ?? [])]) }
}

/** none, the one the one-statement path takes, and two it leaves to the provider (RFC 7662 section 2.1 leaves unknown ones to the server) */
const HINTS: Array<string | undefined> = [undefined, 'access_token', 'refresh_token', 'junk']
const tokenParams = (token: string, hint: string | undefined): Pairs => [['token', token], ...(hint === undefined ? [] : ([['token_type_hint', hint]] as Pairs))]

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * The case as the gateway forwards it (server/utils/oidc-forward.ts), to one IAM. A 503 with
 * Retry-After is the IAM saying its database or store did not answer in time (iam/lib/outage.ts;
 * on a loaded CI box, two IAMs share one PostgreSQL): no decision to compare, so the case is asked
 * again after a short pause, at most ten times.
 */
async function ask(iam: IamClient, c: Case, attempt = 1): Promise<Answer> {
  const res = await iam.forward({ method: 'POST', target: INTROSPECTION, headers: c.headers, body: Buffer.from(c.body), clientIp: '198.51.100.23' })
  if (res.status === 503 && res.headers.has('retry-after') && attempt < 10) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    return ask(iam, c, attempt + 1)
  }
  // by name: the members' order is compared (the body's), the headers' order on the wire is not
  const shown: Array<[string, string]> = []
  res.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) shown.push([name, value])
  })
  const headers = Object.fromEntries(shown.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  return { status: res.status, headers, body: Buffer.from(res.body).toString('utf8') }
}

interface Outcome {
  name: string
  fast: Answer
  provider: Answer
}

/** Every case to both IAMs, a few at a time; the cases whose answers differ. */
async function bothPaths(cases: Case[]): Promise<{ outcomes: Outcome[]; differing: Outcome[] }> {
  const outcomes: Outcome[] = []
  const width = 4
  for (let i = 0; i < cases.length; i += width) {
    outcomes.push(
      ...(await Promise.all(
        cases.slice(i, i + width).map(async (c) => {
          const [fast, provider] = await Promise.all([ask(paths.fast!, c), ask(paths.provider!, c)])
          return { name: c.name, fast, provider }
        }),
      )),
    )
  }
  return { outcomes, differing: outcomes.filter((o) => !isDeepStrictEqual(o.fast, o.provider)) }
}

const isActive = (o: Outcome) => o.fast.status === 200 && (JSON.parse(o.fast.body) as { active?: unknown }).active === true
const activeIn = (outcomes: Outcome[]) => outcomes.filter(isActive).length

/** The live tokens among the fixtures, and the client each was issued to. */
const LIVE: Record<string, string> = {
  'code access token for an API': 'shop',
  'refresh token': 'shop',
  'code access token for userinfo': 'shop',
  'refresh token for userinfo': 'shop',
  'client credentials for an API': 'worker',
  'client credentials': 'worker',
  'public client access token': 'mobile',
  'public client refresh token': 'mobile',
}

// ---------------------------------------------------------------------------------------------

describe('both paths give every introspection the same answer', () => {
  it('every token kind and state, asked by every kind of caller under every token_type_hint: the same status, headers and body', async () => {
    const cases: Case[] = []
    const auths: Array<[string, Auth]> = [...Object.entries(callers).map(([name, client]) => [name, registeredAuth(client)] as [string, Auth]), ['unknown', UNKNOWN_CLIENT]]
    for (const [tokenName, token] of Object.entries(tokens)) {
      for (const [callerName, auth] of auths) {
        for (const hint of HINTS) cases.push(makeCase(`${tokenName} asked by ${callerName}, hint ${hint ?? 'none'}`, auth, tokenParams(token, hint)))
      }
      cases.push(makeCase(`${tokenName}, no token parameter`, registeredAuth(callers.shop!), []))
    }
    const { outcomes, differing } = await bothPaths(cases)
    expect(differing).toEqual([])
    // the fixtures are what their names say: each live token is active for its own client, every other state is not
    const activeForSomeone = Object.keys(tokens).filter((tokenName) =>
      Object.keys(callers).some((callerName) => outcomes.some((o) => o.name.startsWith(`${tokenName} asked by ${callerName}, hint none `) && isActive(o))),
    )
    expect(activeForSomeone.sort()).toEqual(Object.keys(LIVE).sort())
    for (const [tokenName, owner] of Object.entries(LIVE)) expect({ tokenName, active: outcomes.some((o) => o.name.startsWith(`${tokenName} asked by ${owner}, hint none `) && isActive(o)) }).toEqual({ tokenName, active: true })
  }, MATRIX_TIMEOUT_MS)

  it('every way of authenticating, right or wrong, gets the same answer from both paths', async () => {
    const { shop, partner, mobile } = callers as Record<string, Client>
    const id = shop!.client.client_id
    const right = shop!.secret!
    const postId = partner!.client.client_id
    const postSecret = partner!.secret!
    const goodBasic = base64(`${id}:${right}`)
    const ways: Auth[] = [
      { name: 'Basic', headers: { authorization: basicOf(id, right) } },
      { name: 'Basic, wrong secret', headers: { authorization: basicOf(id, `${right}x`) } },
      { name: 'Basic, every byte form-encoded', headers: { authorization: `Basic ${base64(`${everyByteEncoded(id)}:${everyByteEncoded(right)}`)}` } },
      { name: 'Basic, scheme in lower case', headers: { authorization: `basic ${goodBasic}` } },
      { name: 'Basic, no secret', headers: { authorization: `Basic ${base64(`${id}:`)}` } },
      { name: 'Basic, no colon', headers: { authorization: `Basic ${base64(id)}` } },
      { name: 'Basic, empty id', headers: { authorization: `Basic ${base64(`:${right}`)}` } },
      { name: 'Basic, and the same client_id in the body', headers: { authorization: basicOf(id, right) }, params: [['client_id', id]] },
      { name: 'Basic, and another client_id in the body', headers: { authorization: basicOf(id, right) }, params: [['client_id', postId]] },
      { name: 'Basic, and client_secret in the body too', headers: { authorization: basicOf(id, right) }, params: [['client_secret', right]] },
      { name: 'Basic, and an empty client_secret in the body', headers: { authorization: basicOf(id, right) }, params: [['client_secret', '']] },
      { name: 'Basic for a client registered for client_secret_post', headers: { authorization: basicOf(postId, postSecret) } },
      { name: 'client_secret_post', params: [['client_id', postId], ['client_secret', postSecret]] },
      { name: 'client_secret_post, wrong secret', params: [['client_id', postId], ['client_secret', `${postSecret}x`]] },
      { name: 'client_secret_post without client_id', params: [['client_secret', postSecret]] },
      { name: 'client_secret_post for a client registered for client_secret_basic', params: [['client_id', id], ['client_secret', right]] },
      { name: 'client_id only, of a confidential client', params: [['client_id', id]] },
      { name: 'client_id only, of a public client', params: [['client_id', mobile!.client.client_id]] },
      { name: 'Basic of a public client', headers: { authorization: basicOf(mobile!.client.client_id, 'anything') } },
      { name: 'nothing', params: [] },
      UNKNOWN_CLIENT,
      { name: 'unknown client (in the body)', params: [['client_id', 'no-such-client'], ['client_secret', 'some-secret']] },
      { name: 'Bearer', headers: { authorization: `Bearer ${tokens['code access token for userinfo']}` } },
      { name: 'client_secret_post with an empty Authorization header', headers: { authorization: '' }, params: [['client_id', postId], ['client_secret', postSecret]] },
    ]
    const asked = ['code access token for an API', 'code access token for userinfo', 'refresh token', 'client credentials', 'unknown value']
    const cases = ways.flatMap((auth) => asked.flatMap((tokenName) => [undefined, 'access_token'].map((hint) => makeCase(`${tokenName}, hint ${hint ?? 'none'}`, auth, tokenParams(tokens[tokenName]!, hint)))))
    const { outcomes, differing } = await bothPaths(cases)
    expect(differing).toEqual([])
    expect(activeIn(outcomes)).toBeGreaterThan(0)
  }, MATRIX_TIMEOUT_MS)

  it('the shape of the request, its content type and its Authorization header, gets the same answer from both paths', async () => {
    const shop = callers.shop!
    const id = shop.client.client_id
    const goodBasic = base64(`${id}:${shop.secret}`)
    const authorizations: Array<[string, string]> = [
      ['two spaces after the scheme', `Basic  ${goodBasic}`],
      ['a character outside base64', `Basic ${goodBasic.slice(0, 8)}!${goodBasic.slice(8)}`],
      ['one padding character too many', `Basic ${goodBasic}=`],
      ['unpadded', `Basic ${goodBasic.replace(/=+$/, '')}`],
      ['base64url alphabet', `Basic ${goodBasic.replace(/\+/g, '-').replace(/\//g, '_')}`],
      ['a tab after the scheme', `Basic\t${goodBasic}`],
      ['the scheme alone', 'Basic'],
    ]
    const contentTypes: Array<[string, Record<string, string>]> = [
      ['form, charset utf-8', { 'content-type': `${FORM}; charset=utf-8` }],
      ['form, upper case', { 'content-type': FORM.toUpperCase() }],
      ['form, charset utf-16le', { 'content-type': `${FORM}; charset=utf-16le` }],
      ['form, unknown charset', { 'content-type': `${FORM}; charset=no-such-charset` }],
      ['form, another parameter', { 'content-type': `${FORM}; foo=bar` }],
      ['a type that starts like the form type', { 'content-type': `${FORM}-v2` }],
      ['text/plain', { 'content-type': 'text/plain' }],
      ['no content type', {}],
      ['an Origin', { 'content-type': FORM, origin: 'https://app.example.test' }],
    ]
    const cases: Case[] = []
    for (const tokenName of ['code access token for an API', 'client credentials', 'unknown value']) {
      const params = tokenParams(tokens[tokenName]!, undefined)
      for (const [name, authorization] of authorizations) cases.push(makeCase(`${tokenName}, Authorization: ${name}`, { name: 'shop', headers: { authorization } }, params))
      for (const [name, headers] of contentTypes) cases.push(makeCase(`${tokenName}, ${name}`, registeredAuth(shop), params, headers))
      cases.push({ name: `${tokenName}, every byte of the body percent-encoded`, headers: { 'content-type': FORM, authorization: basicOf(id, shop.secret!) }, body: `token=${everyByteEncoded(tokens[tokenName]!)}` })
    }
    const { differing } = await bothPaths(cases)
    expect(differing).toEqual([])
  })

  it('duplicate, empty, unknown and unusual parameters get the same answer from both paths', async () => {
    const { shop, partner } = callers as Record<string, Client>
    const variants: Array<[string, (token: string) => Pairs, Auth]> = [
      ['token twice, the same value', (t) => [['token', t], ['token', t]], registeredAuth(shop!)],
      ['token twice, another value second', (t) => [['token', t], ['token', 'other']], registeredAuth(shop!)],
      ['token_type_hint twice', (t) => [['token', t], ['token_type_hint', 'access_token'], ['token_type_hint', 'access_token']], registeredAuth(shop!)],
      ['an empty token_type_hint', (t) => [['token', t], ['token_type_hint', '']], registeredAuth(shop!)],
      ['the token type URI as token_type_hint (RFC 8693 section 3)', (t) => [['token', t], ['token_type_hint', 'urn:ietf:params:oauth:token-type:access_token']], registeredAuth(shop!)],
      ['client_id twice', (t) => [['token', t], ['client_id', partner!.client.client_id]], registeredAuth(partner!)],
      ['client_secret twice', (t) => [['token', t], ['client_secret', partner!.secret!]], registeredAuth(partner!)],
      ['an unknown parameter', (t) => [['token', t], ['foo', 'bar']], registeredAuth(shop!)],
      ['a parameter with an empty name', (t) => [['token', t], ['', 'x']], registeredAuth(shop!)],
      ['a resource parameter', (t) => [['token', t], ['resource', LEDGER]], registeredAuth(shop!)],
    ]
    const cases = variants.flatMap(([name, params, auth]) =>
      ['code access token for an API', 'client credentials', 'refresh token', 'unknown value'].map((tokenName) => makeCase(`${tokenName}, ${name}`, auth, params(tokens[tokenName]!))),
    )
    const { differing } = await bothPaths(cases)
    expect(differing).toEqual([])
  })
})

describe('the switch', () => {
  /** the IAM's database reads while `run` runs (iam_db_statements_total) */
  async function readsDuring(url: string, run: () => Promise<unknown>): Promise<number> {
    const before = await scrapeMetrics(url)
    await run()
    return moved(before, await scrapeMetrics(url), 'iam_db_statements_total', { kind: 'read' })
  }
  const own = (tokenName: string) => makeCase(tokenName, registeredAuth(callers.shop!), tokenParams(tokens[tokenName]!, undefined))

  // one read for the expired token also shows it is stored: an unknown one goes on to the provider
  it('on (the default), a live or expired opaque access token is answered in one read; off, the provider answers it with more', async () => {
    for (const tokenName of ['code access token for an API', 'code access token, expired']) {
      const c = own(tokenName)
      expect({ tokenName, reads: await readsDuring(op.iam.url, () => ask(paths.fast!, c)) }).toEqual({ tokenName, reads: 1 })
      expect(await readsDuring(second.url, () => ask(paths.provider!, c))).toBeGreaterThan(1)
    }
    expect(await readsDuring(op.iam.url, () => ask(paths.fast!, own('unknown value')))).toBeGreaterThan(1)
  })
})
