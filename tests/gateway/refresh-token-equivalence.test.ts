/**
 * The two ways a refresh token grant (RFC 6749 section 6) is answered give the same answer to every
 * request: the two-statement path (iam/fast/refresh-token.ts, on by default) and oidc-provider's
 * token endpoint alone (`oidc.fastRefreshToken: false`). Two IAM instances answer: A, the stack's,
 * with the default, and B, started with the switch off, on A's clients and tokens (on PostgreSQL
 * A's database; on PGlite a copy of it taken once every refresh token below exists,
 * test-build/routes/__test/database-dump.get.ts).
 *
 * Each case goes to A and to B as the gateway forwards it (server/utils/oidc-forward.ts: the same
 * bytes, signed): the status, every header but the per-response `date` and `x-request-id`, and the
 * body must be the same, aside from what each grant makes anew: the access token's value, and the
 * ID token's `iat` and `exp`, which may differ by the second or two between the two answers but
 * not in the token's lifetime (the ID token is compared decoded: its protected header and every
 * other claim). A refresh token not rotated comes back as sent, on both sides or on neither. Every
 * access token either path issued introspects, at the IAM that issued it, to the same members with
 * the same lifetime, and answers at userinfo as the other's does; one of the two-statement path is
 * one the provider itself revokes.
 *
 * The rows: a non-rotating refresh writes nothing to its token (node_modules/oidc-provider,
 * lib/actions/grants/refresh_token.js), so such a case sends the same token to both IAMs. A case
 * that changes a token's state (a rotation, a rotated-away token presented again, which revokes its
 * grant) sends each IAM a token of its own, minted in the same browser session with the same nonce
 * so that the two answers still carry the same claims: on PostgreSQL the two IAMs share the rows,
 * and the first IAM's write would otherwise decide the second's answer.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import { decodeJwt, decodeProtectedHeader, SignJWT, type JWK } from 'jose'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIamClient, type IamClient } from '../../iam/client/iam-client'
import { hmac, mailTo } from '../e2e/auth-stack'
import type { IamServer } from '../helpers/iam-server'
import { API, authorizationUrl, Browser, codeParams, insecure, signUp, startOpStack, startSecondIam, walkAuthorization, type OpStack, type RegisteredClient } from '../helpers/oidc-op'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import { linkQueryOf } from '../helpers/smtp'

const TOKEN = '/oidc/token'
const INTROSPECTION = '/oidc/token/introspection'
const REVOCATION = '/oidc/token/revocation'
const USERINFO = '/oidc/me'
const FORM = 'application/x-www-form-urlencoded'
const PER_RESPONSE = new Set(['date', 'x-request-id'])
const MATRIX_TIMEOUT_MS = 120_000
/** How far apart the two answers' ID token `iat` (and `exp`) may be: they are asked at once, on a machine that may be loaded. */
const CLOCK_SLACK_SECONDS = 2
const REGISTRATION_TOKEN = 'refresh-equivalence-registration-token-0123456789'
const REDIRECT = 'http://127.0.0.1:9/cb'
/** oidc-provider keeps offline_access only when the request also says prompt=consent (OIDC Core 11). */
const CONSENT = { prompt: 'consent' }
/** The nonce of the two flows whose tokens go one to each IAM: their ID tokens then carry the same claims. */
const SHARED_NONCE = 'refresh-equivalence-shared-nonce'

const secret = () => randomBytes(32).toString('base64url')
const privateJwk = (key: KeyObject, extra: Record<string, string> = {}): JWK => ({ ...(key.export({ format: 'jwk' }) as JWK), ...extra })

let op: OpStack
let second: IamServer
const paths: { fast?: IamClient; provider?: IamClient } = {}
const clients: Record<string, RegisteredClient> = {}
/** the clients that send their secret in the body (client_secret_post) */
const posting = new Set<RegisteredClient>()
/** name -> refresh token (or, for `accessToken`, an access token) */
const tokens: Record<string, string> = {}
/** the first answers to the revoked token, while it was live, at A and at B */
const beforeRevocation: Partial<Record<Side, Answer>> = {}

type Side = 'fast' | 'provider'
type Pairs = Array<[string, string]>

/** B: A's configuration with every refresh grant left to the provider. */
function switchOff(config: { oidc: Record<string, unknown> }): void {
  config.oidc.fastRefreshToken = false
}

/** A client registered through RFC 7591 dynamic registration: the only way to give it metadata the admin CLI does not write (its ID token algorithm). */
async function registerDynamically(name: string, metadata: Record<string, unknown>): Promise<RegisteredClient> {
  const res = await fetch(op.as.registration_endpoint!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${REGISTRATION_TOKEN}` },
    body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...metadata }),
  })
  expect(res.status, await res.clone().text()).toBe(201)
  const body = (await res.json()) as { client_id: string; client_secret: string }
  const method = metadata.token_endpoint_auth_method
  const client: RegisteredClient = {
    client: { client_id: body.client_id, ...(metadata.id_token_signed_response_alg ? { id_token_signed_response_alg: metadata.id_token_signed_response_alg as string } : {}) },
    auth: method === 'client_secret_post' ? oauth.ClientSecretPost(body.client_secret) : oauth.ClientSecretBasic(body.client_secret),
    secret: body.client_secret,
    redirectUri: REDIRECT,
  }
  if (method === 'client_secret_post') posting.add(client)
  return client
}

/**
 * A code flow in a signed-in browser, redeemed as the RP does, to its refresh token. `nonce: null`
 * sends no nonce; a flow without `openid` has no ID token to check.
 */
async function mint(rp: RegisteredClient, browser: Browser, params: Record<string, string>, options: { nonce?: string | null } = {}): Promise<{ refresh: string; access: string }> {
  const chosen: Record<string, string> = typeof options.nonce === 'string' ? { nonce: options.nonce } : {}
  const { url, verifier, state, nonce } = await authorizationUrl(op, rp, { ...CONSENT, ...params, ...chosen })
  const start = new URL(url)
  if (options.nonce === null) start.searchParams.delete('nonce')
  const walk = await walkAuthorization(browser, start.href, rp.redirectUri)
  expect(walk.callback, `authorization ended at ${walk.stopped?.status} ${await walk.stopped?.clone().text()}`).toBeDefined()
  expect(walk.callback!.searchParams.get('error'), walk.callback!.search).toBeNull()
  const code = codeParams(op, rp, walk.callback!, state)
  const response = await oauth.authorizationCodeGrantRequest(op.as, rp.client, rp.auth, code, rp.redirectUri, verifier, insecure)
  const openid = (params.scope ?? '').split(' ').includes('openid')
  const result = await oauth.processAuthorizationCodeResponse(op.as, rp.client, response, {
    expectedNonce: options.nonce === null ? oauth.expectNoNonce : (options.nonce ?? nonce),
    requireIdToken: openid,
  })
  expect(result.refresh_token, `a refresh token for ${params.scope}`).toBeTruthy()
  return { refresh: result.refresh_token!, access: result.access_token }
}

beforeAll(async () => {
  // Set, not generated per data directory: B opens the same sealed client secrets and signs with
  // the same keys. Beside RSA keys, which every client can verify, EC P-256 and Ed25519 keys for
  // the clients registered for ES256 and EdDSA ID tokens (the provider's enabledJWA,
  // features/oidc/provider.ts). Two keys of a type, the second naming its `use` or `alg`, as keys
  // from two tools can come: which one signs is the provider's keystore's choice
  // (node_modules/oidc-provider/lib/helpers/initialize_keystore.js fills in `use` and a sole
  // algorithm before keystore.js scores them), and the kid in the ID token must be the same.
  const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
  const ec = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
  const secrets = {
    codes: secret(),
    links: secret(),
    totpKeys: [{ id: 'k1', key: secret() }],
    oidcRegistrationToken: REGISTRATION_TOKEN,
    oidcKeys: [privateJwk(rsa()), privateJwk(rsa(), { use: 'sig' }), privateJwk(ec()), privateJwk(ec(), { alg: 'ES256' }), privateJwk(generateKeyPairSync('ed25519').privateKey)],
  }
  op = await startOpStack({ iamConfig: () => ({ secrets, oidc: { registration: { enabled: true } } }) })

  // one client per grant: a grant a case ends (revocation, reuse, the account's deletion) is no
  // other case's; the default registered scope is openid profile email offline_access
  clients.basic = await op.register({ name: 'Notes' })
  clients.post = await op.register({ name: 'Calendar', authMethod: 'client_secret_post' })
  posting.add(clients.post)
  clients.firstParty = await op.register({ name: 'Shop', firstParty: true })
  clients.es256 = await registerDynamically('Maps', { token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256' })
  // require_auth_time: the provider asks for auth_time in the ID token of every grant it makes
  // (node_modules/oidc-provider/lib/actions/authorization/claims.js), the refresh's included
  clients.eddsa = await registerDynamically('Chat', { token_endpoint_auth_method: 'client_secret_post', id_token_signed_response_alg: 'EdDSA', require_auth_time: true, default_max_age: 3600 })
  clients.oauth = await op.register({ name: 'Backup agent' })
  clients.maxAge = await op.register({ name: 'Bank' })
  clients.noNonce = await op.register({ name: 'Forum' })
  clients.nonce = await op.register({ name: 'Wiki' })
  clients.orgs = await op.register({ name: 'Team board', scope: 'openid profile email offline_access organization' })
  clients.apiResource = await op.register({ name: 'Orders', scope: 'openid offline_access orders:read' })
  clients.apiScope = await op.register({ name: 'Order history', scope: 'openid offline_access orders:read' })
  clients.grown = await op.register({ name: 'Journal' })
  clients.shuffled = await op.register({ name: 'Photos' })
  clients.public = await op.register({ name: 'Mobile', public: true, firstParty: true })
  clients.revoked = await op.register({ name: 'Revoked notes' })
  clients.revocable = await op.register({ name: 'Revocable notes' })
  clients.doomed = await op.register({ name: 'Deleted notes' })
  clients.codeOnly = await op.register({ name: 'Code only', grants: ['authorization_code'] })

  const browser = new Browser(op.url)
  await signUp(browser)
  const minted = await mint(clients.basic, browser, { scope: 'openid offline_access' })
  tokens.basic = minted.refresh
  tokens.accessToken = minted.access
  tokens.post = (await mint(clients.post, browser, { scope: 'openid profile email offline_access' })).refresh
  tokens.firstParty = (await mint(clients.firstParty, browser, { scope: 'openid profile email offline_access' })).refresh
  tokens.es256 = (await mint(clients.es256, browser, { scope: 'openid email offline_access' })).refresh
  tokens.eddsa = (await mint(clients.eddsa, browser, { scope: 'openid profile offline_access' })).refresh
  // a plain OAuth 2.0 request (no openid, so no nonce either): a refresh token, no ID token
  tokens.oauth = (await mint(clients.oauth, browser, { scope: 'offline_access' }, { nonce: null })).refresh
  // the provider has no claims parameter (features/oidc/provider.ts leaves claimsParameter off):
  // max_age and acr_values are how a request asks for auth_time and acr in the ID token (OIDC Core
  // 3.1.2.1), which the token then carries as a claims request
  tokens.maxAge = (await mint(clients.maxAge, browser, { scope: 'openid offline_access', max_age: '3600', acr_values: 'urn:example:loa:1' })).refresh
  tokens.noNonce = (await mint(clients.noNonce, browser, { scope: 'openid offline_access' }, { nonce: null })).refresh
  tokens.nonce = (await mint(clients.nonce, browser, { scope: 'openid email offline_access' }, { nonce: 'n-0S6_WzA2Mj' })).refresh
  tokens.orgs = (await mint(clients.orgs, browser, { scope: 'openid organization offline_access' })).refresh
  // RFC 8707: a token for the API (a JWT access token), and one with the API's scope but no resource
  tokens.apiResource = (await mint(clients.apiResource, browser, { scope: 'openid offline_access orders:read', resource: API })).refresh
  tokens.apiScope = (await mint(clients.apiScope, browser, { scope: 'openid offline_access orders:read' })).refresh
  // a grant that grew after its first token: the older token keeps its narrower scope
  tokens.grownNarrow = (await mint(clients.grown, browser, { scope: 'openid offline_access' })).refresh
  tokens.grownWide = (await mint(clients.grown, browser, { scope: 'openid email profile offline_access' })).refresh
  // the scope asked for in another order than the provider's
  tokens.shuffled = (await mint(clients.shuffled, browser, { scope: 'offline_access email openid profile' })).refresh
  // the public client's tokens, one per IAM, of the same session and nonce
  tokens.publicFast = (await mint(clients.public, browser, { scope: 'openid offline_access' }, { nonce: SHARED_NONCE })).refresh
  tokens.publicProvider = (await mint(clients.public, browser, { scope: 'openid offline_access' }, { nonce: SHARED_NONCE })).refresh
  tokens.revoked = (await mint(clients.revoked, browser, { scope: 'openid offline_access' })).refresh
  tokens.revocable = (await mint(clients.revocable, browser, { scope: 'openid profile offline_access' })).refresh

  // an account deleted once its app had a refresh token, which A used just before: the state is
  // the same on both IAMs (it is set before B starts). A ban ends the account's grants the same
  // way (features/oidc/accounts.ts), so it is not a case of its own.
  const doomed = new Browser(op.url)
  const email = await signUp(doomed)
  tokens.deleted = (await mint(clients.doomed, doomed, { scope: 'openid offline_access' })).refresh
  const warm = await createIamClient({ baseUrl: op.iam.url, hmac }).forward({
    method: 'POST',
    target: TOKEN,
    headers: { 'content-type': FORM, authorization: basicOf(clients.doomed.client.client_id, clients.doomed.secret!) },
    body: Buffer.from(form([['grant_type', 'refresh_token'], ['refresh_token', tokens.deleted]])),
  })
  expect(warm.status).toBe(200)
  expect((await doomed.post('/api/auth/delete-account')).status).toBe(202)
  const confirmed = await doomed.post(`/api/auth/delete-account/confirm${linkQueryOf(await mailTo(op.smtp, email, '/auth/delete-account?'))}`)
  expect(confirmed.status, await confirmed.clone().text()).toBe(200)

  // IAM B: A's configuration with the switch off, on A's clients and tokens
  second = await startSecondIam(op, 'refresh-token-equivalence', switchOff)
  paths.fast = createIamClient({ baseUrl: op.iam.url, hmac })
  paths.provider = createIamClient({ baseUrl: second.url, hmac })

  // A refresh token revoked at the revocation endpoint once both IAMs had answered it: revoked at
  // each (on PGlite each holds its own copy; on PostgreSQL the second finds it gone and answers 200
  // all the same, RFC 7009 section 2.2).
  const revokedCase = grantCase('revoked token, while live', registered(clients.revoked), tokens.revoked, [], clients.revoked)
  for (const side of ['fast', 'provider'] as const) beforeRevocation[side] = await ask(paths[side]!, side, revokedCase)
  for (const side of ['fast', 'provider'] as const) {
    const revoked = await ask(paths[side]!, side, { headers: { 'content-type': FORM, authorization: basicOf(clients.revoked.client.client_id, clients.revoked.secret!) }, body: form([['token', tokens.revoked]]) }, REVOCATION)
    expect(revoked.status).toBe(200)
  }
}, 240_000)

afterAll(async () => {
  await second?.stop()
  await op?.stop()
})

interface Case {
  name: string
  headers: Record<string, string>
  /** headers of one side's request only (a DPoP proof is good for one request) */
  sideHeaders?: Record<Side, Record<string, string>>
  /** the body sent to A and to B: the same, but for a case that changes its token's state */
  body: Record<Side, string>
  /** the refresh token sent to A and to B, to tell a rotated one from the one sent */
  sent: Record<Side, string | undefined>
  /** the client whose access token a 200 carries, for its introspection */
  owner?: RegisteredClient
}

const form = (pairs: Pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
const base64 = (text: string) => Buffer.from(text).toString('base64')
const basicOf = (id: string, secretValue: string) => `Basic ${base64(`${encodeURIComponent(id)}:${encodeURIComponent(secretValue)}`)}`
const everyByteEncoded = (text: string) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')

/** How `client` authenticates as registered: Basic, in the body, or (a public client) its id alone. */
function registered(client: RegisteredClient, post = posting.has(client)): { headers: Record<string, string>; params: Pairs } {
  const id = client.client.client_id
  if (client.secret === null) return { headers: {}, params: [['client_id', id]] }
  return post ? { headers: {}, params: [['client_id', id], ['client_secret', client.secret]] } : { headers: { authorization: basicOf(id, client.secret) }, params: [] }
}

/**
 * A refresh grant: grant_type, the token (one for both IAMs, or one each), `extra`, then the
 * client's body credentials.
 */
function grantCase(
  name: string,
  auth: { headers: Record<string, string>; params: Pairs },
  token: string | Record<Side, string> | undefined,
  extra: Pairs = [],
  owner?: RegisteredClient,
  headers: Record<string, string> = { 'content-type': FORM },
): Case {
  const sent = typeof token === 'object' ? token : { fast: token, provider: token }
  const body = (side: Side) => form([['grant_type', 'refresh_token'], ...(sent[side] === undefined ? [] : ([['refresh_token', sent[side]]] as Pairs)), ...extra, ...auth.params])
  return { name, headers: { ...headers, ...auth.headers }, body: { fast: body('fast'), provider: body('provider') }, sent, owner }
}

interface Answer {
  status: number
  headers: Record<string, string>
  body: Record<string, unknown> | string
  /** the access token's value */
  token?: string
  /** a new refresh token's value */
  rotated?: string
  /** the ID token's clock claims */
  idTokenClock?: { iat: number; exp: number }
}

/**
 * The request as the gateway forwards it, to one IAM; a 503 with Retry-After (an outage on a loaded
 * box) is asked again. What each grant makes anew is masked: the access token's value (its length
 * kept), a new refresh token's value, and the ID token, decoded, its `iat` and `exp` replaced by the
 * lifetime they span.
 */
async function ask(
  iam: IamClient,
  side: Side,
  c: { headers: Record<string, string>; sideHeaders?: Record<Side, Record<string, string>>; body: string | Record<Side, string>; sent?: Record<Side, string | undefined> },
  target = TOKEN,
  method = 'POST',
  attempt = 1,
): Promise<Answer> {
  const body = typeof c.body === 'string' ? c.body : c.body[side]
  const res = await iam.forward({ method, target, headers: { ...c.headers, ...c.sideHeaders?.[side] }, ...(method === 'POST' ? { body: Buffer.from(body) } : {}), clientIp: '198.51.100.24' })
  if (res.status === 503 && res.headers.has('retry-after') && attempt < 10) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    return ask(iam, side, c, target, method, attempt + 1)
  }
  // by name: the members' order is compared (the body's), the headers' order on the wire is not
  const shown: Array<[string, string]> = []
  res.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) shown.push([name, value])
  })
  const headers = Object.fromEntries(shown.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  const text = Buffer.from(res.body).toString('utf8')
  let parsed: Record<string, unknown> | string = text
  try {
    parsed = JSON.parse(text) as Record<string, unknown>
  } catch {
    // an HTML error page or an empty body stays text
  }
  const answer: Answer = { status: res.status, headers, body: parsed }
  if (typeof parsed !== 'object' || parsed === null) return answer
  const masked: Record<string, unknown> = { ...parsed }
  if (typeof parsed.access_token === 'string') {
    answer.token = parsed.access_token
    masked.access_token = `<${parsed.access_token.length} characters>`
  }
  if (typeof parsed.refresh_token === 'string') {
    if (parsed.refresh_token === c.sent?.[side]) masked.refresh_token = '<the refresh token sent>'
    else {
      answer.rotated = parsed.refresh_token
      masked.refresh_token = `<a new one, ${parsed.refresh_token.length} characters>`
    }
  }
  if (typeof parsed.id_token === 'string') {
    const { iat, exp, ...claims } = decodeJwt(parsed.id_token)
    answer.idTokenClock = { iat: iat!, exp: exp! }
    masked.id_token = { header: decodeProtectedHeader(parsed.id_token), claims, lifetime: exp! - iat! }
  }
  answer.body = masked
  return answer
}

/** The answer without the values kept aside, as compared. */
const shownOf = ({ token: _token, rotated: _rotated, idTokenClock: _clock, ...shown }: Answer) => shown

/**
 * What `token` introspects to at `iam`, asked by its own client; the clock's members as the
 * lifetime. A JWT access token (an API that takes them) is read instead: the provider introspects
 * only opaque ones, and the JWT's own id is per token.
 */
async function introspected(iam: IamClient, side: Side, owner: RegisteredClient, token: string): Promise<Record<string, unknown>> {
  if (token.split('.').length === 3) {
    const { iat, exp, jti: _jti, ...claims } = decodeJwt(token)
    return { active: true, ...claims, lifetime: exp! - iat! }
  }
  const auth = registered(owner)
  const answer = await ask(iam, side, { headers: { 'content-type': FORM, ...auth.headers }, body: form([['token', token], ...auth.params]) }, INTROSPECTION)
  expect(answer.status, `${token}: ${JSON.stringify(answer.body)}`).toBe(200)
  const { iat, exp, jti: _jti, ...rest } = answer.body as Record<string, unknown>
  return { ...rest, lifetime: typeof exp === 'number' && typeof iat === 'number' ? exp - iat : 'none' }
}

const dpopKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })

/** A DPoP proof (RFC 9449 section 4.2) for a POST to the token endpoint: a new one per request, the provider refusing a replayed one. */
const dpopProof = () =>
  new SignJWT({ htm: 'POST', htu: op.as.token_endpoint!, jti: randomBytes(16).toString('base64url') })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopKey.publicKey.export({ format: 'jwk' }) as JWK })
    .setIssuedAt()
    .sign(dpopKey.privateKey)

/** Userinfo (OIDC Core 5.3) with `token` as the Bearer token, as an RP calls it through the gateway. */
const userinfo = (iam: IamClient, side: Side, token: string) => ask(iam, side, { headers: { authorization: `Bearer ${token}` }, body: '' }, USERINFO, 'GET')

describe('both paths give every refresh token grant the same answer', () => {
  it('answers every refresh grant as oidc-provider\'s token endpoint does: status, headers, body and ID token claims; its access tokens introspect and answer userinfo the same', async () => {
    const c = clients as Record<string, RegisteredClient>
    const t = tokens as Record<string, string>
    const first: Case[] = []
    // the tokens each client got, refreshed as registered: Basic, in the body, or a public client's id
    const owned = {
      basic: 'client_secret_basic, openid offline_access',
      post: 'client_secret_post, openid profile email offline_access',
      firstParty: 'a first-party client, openid profile email offline_access',
      es256: 'a dynamically registered client with ES256 ID tokens',
      eddsa: 'a dynamically registered client with EdDSA ID tokens, require_auth_time and default_max_age (client_secret_post)',
      oauth: 'offline_access without openid: no ID token',
      maxAge: 'a code flow that asked for max_age and acr_values: auth_time in the ID token',
      noNonce: 'a code flow without a nonce',
      nonce: 'a code flow with a chosen nonce, openid email offline_access',
      orgs: 'openid organization offline_access',
      apiResource: 'a token for an API (resource indicator at authorization): a JWT access token',
      apiScope: 'an API scope granted without a resource indicator',
      grownNarrow: 'the first token of a grant that grew since',
      grownWide: 'the second token of a grant that grew',
      shuffled: 'a scope asked for out of order',
    }
    // the client of a token is its name with the token's variant cut off (grownNarrow: grown)
    const clientOf = (who: string) => c[who.replace(/(Narrow|Wide)$/, '')]!
    for (const [who, name] of Object.entries(owned)) first.push(grantCase(name, registered(clientOf(who)), t[who], [], clientOf(who)))
    const basic = c.basic!
    const id = basic.client.client_id
    const right = basic.secret!
    const post = c.post!
    first.push(
      // a public client's token rotates at every refresh (the library's rotateRefreshToken): one
      // each. A confidential client's rotates once 70% of its life has passed, by the provider's
      // wall clock, which the test build's clock (iam/test-build/clock.ts) does not move: ten days
      // of oidc.ttl.refreshTokenMs, so no such case here.
      grantCase('a public client: the token rotates', registered(c.public!), { fast: t.publicFast!, provider: t.publicProvider! }, [], c.public),
      grantCase('the same token again', registered(basic), t.basic, [], basic),
      grantCase('a scope narrowing the token to openid', registered(basic), t.basic, [['scope', 'openid']], basic),
      grantCase('a scope the same as the token\'s', registered(basic), t.basic, [['scope', 'openid offline_access']], basic),
      grantCase('a scope beyond the token\'s', registered(basic), t.basic, [['scope', 'openid email']]),
      grantCase('a scope narrowing a profile token to openid email', registered(post), t.post, [['scope', 'openid email']], post),
      grantCase('a resource the token was not granted for', registered(basic), t.basic, [['resource', API]]),
      grantCase('the resource the token was granted for', registered(c.apiResource!), t.apiResource, [['resource', API]], c.apiResource),
      grantCase('an unknown resource', registered(basic), t.basic, [['resource', 'https://nowhere.example.test/']]),
      grantCase('an unknown extra parameter', registered(basic), t.basic, [['colour', 'blue']], basic),
      grantCase('an empty scope', registered(basic), t.basic, [['scope', '']], basic),
      grantCase('refresh_token twice, the same', registered(basic), t.basic, [['refresh_token', t.basic!]]),
      grantCase('refresh_token twice, another', registered(basic), t.basic, [['refresh_token', t.post!]]),
      grantCase('grant_type twice', registered(basic), t.basic, [['grant_type', 'refresh_token']]),
      grantCase('no refresh_token', registered(basic), undefined),
      grantCase('an empty refresh_token', registered(basic), ''),
      grantCase('a garbage refresh token', registered(basic), 'garbage'),
      grantCase('an unknown refresh token of the right shape', registered(basic), randomBytes(32).toString('base64url')),
      grantCase('an access token as the refresh token', registered(basic), t.accessToken),
      grantCase('the refresh token of another client', registered(basic), t.post),
      grantCase('a revoked refresh token', registered(c.revoked!), t.revoked),
      grantCase('the token of an account deleted since', registered(c.doomed!), t.deleted),
      grantCase('a client not allowed the refresh_token grant', registered(c.codeOnly!), t.basic),
      grantCase('a public client\'s id with a confidential client\'s token', registered(c.public!), t.basic),
      grantCase('wrong secret', { headers: { authorization: basicOf(id, `${right}x`) }, params: [] }, t.basic),
      grantCase('wrong secret in the body', { headers: {}, params: [['client_id', post.client.client_id], ['client_secret', `${post.secret!}x`]] }, t.post),
      grantCase('unknown client', { headers: { authorization: basicOf('no-such-client', 'a-secret') }, params: [] }, t.basic),
      grantCase('no client authentication', { headers: {}, params: [] }, t.basic),
      grantCase('Basic and the secret in the body too', { headers: { authorization: basicOf(id, right) }, params: [['client_id', id], ['client_secret', right]] }, t.basic),
      grantCase('Basic and the same client_id in the body', { headers: { authorization: basicOf(id, right) }, params: [['client_id', id]] }, t.basic, [], basic),
      grantCase('Basic and another client_id in the body', { headers: { authorization: basicOf(id, right) }, params: [['client_id', post.client.client_id]] }, t.basic),
      grantCase('Basic for a client registered for client_secret_post', registered(post, false), t.post),
      grantCase('client_secret_post for a client registered for Basic', registered(basic, true), t.basic),
      grantCase('every byte of Basic form-encoded', { headers: { authorization: `Basic ${base64(`${everyByteEncoded(id)}:${everyByteEncoded(right)}`)}` }, params: [] }, t.basic, [], basic),
      grantCase('Basic scheme in lower case', { headers: { authorization: `basic ${base64(`${id}:${right}`)}` }, params: [] }, t.basic, [], basic),
      grantCase('a JSON body', registered(basic), t.basic, [], undefined, { 'content-type': 'application/json' }),
      grantCase('no content type', registered(basic), t.basic, [], undefined, {}),
      grantCase('a form with a charset', registered(basic), t.basic, [], basic, { 'content-type': `${FORM}; charset=utf-8` }),
      grantCase('a malformed DPoP proof', registered(basic), t.basic, [], undefined, { 'content-type': FORM, dpop: 'not-a-proof' }),
      grantCase('with an Origin', registered(basic), t.basic, [], basic, { 'content-type': FORM, origin: 'https://app.example.test' }),
      // a good proof: the access token is bound to the key (token_type DPoP)
      { ...grantCase('a DPoP proof', registered(basic), t.basic, [], basic), sideHeaders: { fast: { dpop: await dpopProof() }, provider: { dpop: await dpopProof() } } },
    )
    // after the rotation: each IAM's public token again, now rotated away (RFC 9700 section 4.14.2),
    // which revokes its grant; on PostgreSQL the second finds the grant gone, the same invalid_grant
    const then: Case[] = [grantCase('a public client\'s token rotated away, presented again', registered(c.public!), { fast: t.publicFast!, provider: t.publicProvider! })]

    const differing: Array<{ name: string; fast: Answer; provider: Answer }> = []
    const answered: Array<{ name: string; fast: Answer; provider: Answer }> = []
    const issued: Array<{ name: string; owner: RegisteredClient; fast: string; provider: string }> = []
    const run = async (batch: Case[]) => {
      await Promise.all(
        batch.map(async (one) => {
          const [fast, provider] = await Promise.all([ask(paths.fast!, 'fast', one), ask(paths.provider!, 'provider', one)])
          // soft: every differing case is reported, not the first one only
          expect.soft({ name: one.name, ...shownOf(fast) }).toEqual({ name: one.name, ...shownOf(provider) })
          // the members in the same order, too
          if (JSON.stringify(shownOf(fast)) !== JSON.stringify(shownOf(provider))) differing.push({ name: one.name, fast, provider })
          // the ID tokens were made at about the same time
          if (fast.idTokenClock && provider.idTokenClock) {
            expect.soft(Math.abs(fast.idTokenClock.iat - provider.idTokenClock.iat), one.name).toBeLessThanOrEqual(CLOCK_SLACK_SECONDS)
            expect.soft(Math.abs(fast.idTokenClock.exp - provider.idTokenClock.exp), one.name).toBeLessThanOrEqual(CLOCK_SLACK_SECONDS)
          }
          answered.push({ name: one.name, fast, provider })
          if (fast.token && provider.token) issued.push({ name: one.name, owner: one.owner!, fast: fast.token, provider: provider.token })
        }),
      )
    }
    for (let i = 0; i < first.length; i += 4) await run(first.slice(i, i + 4))
    await run(then)

    // the cases are what their names say: the right grants got tokens, the rest errors
    const of = (name: string) => answered.find((a) => a.name === name)!.fast
    const granted = answered.filter((a) => a.fast.status === 200).map((a) => a.name)
    for (const name of Object.values(owned)) expect(granted).toContain(name)
    for (const name of ['a scope narrowing the token to openid', 'an unknown extra parameter', 'a form with a charset', 'every byte of Basic form-encoded', 'a public client: the token rotates', 'a DPoP proof']) expect(granted).toContain(name)
    for (const name of ['wrong secret', 'unknown client', 'a revoked refresh token', 'the refresh token of another client', 'a garbage refresh token', 'the token of an account deleted since', 'refresh_token twice, another', 'a public client\'s token rotated away, presented again']) {
      expect(of(name).status, name).toBeGreaterThanOrEqual(400)
    }
    expect(issued.length).toBe(granted.length)
    // a confidential client's young token comes back as sent; the public client's was rotated
    expect((of(owned.basic).body as Record<string, unknown>).refresh_token).toBe('<the refresh token sent>')
    expect(of('a public client: the token rotates').rotated).toBeDefined()
    // the ID token is signed with the client's algorithm, and only an openid token has one
    const idToken = (name: string) => (of(name).body as { id_token?: { header: { alg: string }; claims: Record<string, unknown> } }).id_token
    expect(idToken(owned.basic)!.header.alg).toBe('RS256')
    expect(idToken(owned.es256)!.header.alg).toBe('ES256')
    expect(idToken(owned.eddsa)!.header.alg).toBe('EdDSA')
    expect(idToken(owned.oauth)).toBeUndefined()
    expect(idToken(owned.maxAge)!.claims.auth_time).toEqual(expect.any(Number))
    expect(idToken(owned.nonce)!.claims.nonce).toBe('n-0S6_WzA2Mj')
    expect(idToken(owned.noNonce)!.claims.nonce).toBeUndefined()
    // the revoked token was answered alike, with tokens, while it was live
    expect(beforeRevocation.fast!.status).toBe(200)
    expect.soft(shownOf(beforeRevocation.fast!)).toEqual(shownOf(beforeRevocation.provider!))

    for (const token of issued) {
      // a public client may not introspect (features/oidc/introspection-policy.ts): its tokens are judged at userinfo alone
      const [fast, provider]: Array<Record<string, unknown>> = await Promise.all([
        token.owner.secret === null ? { public: true } : introspected(paths.fast!, 'fast', token.owner, token.fast),
        token.owner.secret === null ? { public: true } : introspected(paths.provider!, 'provider', token.owner, token.provider),
      ])
      expect.soft({ name: token.name, ...fast }).toEqual({ name: token.name, ...provider })
      if (token.owner.secret !== null) expect.soft(fast.active, token.name).toBe(true)
      // the provider itself takes the token at userinfo, and answers for it as for B's
      const [fastInfo, providerInfo] = await Promise.all([userinfo(paths.fast!, 'fast', token.fast), userinfo(paths.provider!, 'provider', token.provider)])
      expect.soft({ name: token.name, ...shownOf(fastInfo) }).toEqual({ name: token.name, ...shownOf(providerInfo) })
    }
    // the userinfo answers are the person's, for the tokens that may ask for it
    const info = await userinfo(paths.fast!, 'fast', issued.find((i) => i.name === owned.post)!.fast)
    expect(info.status).toBe(200)
    expect(info.body).toMatchObject({ sub: expect.any(String), email: expect.any(String), name: 'Ada Lovelace' })
    // the cases whose answers differ, by name (the members in the same order, too)
    expect(differing.map((d) => d.name)).toEqual([])
  }, MATRIX_TIMEOUT_MS)

  // Without this, a two-statement path that answered nothing (every request left to the provider)
  // would pass every comparison above: the database statements of a plain refresh tell who answered
  // (the provider reads the client, then the token with its grant and account, then writes:
  // tests/gateway/oidc-grants.test.ts counts them).
  it("the two-statement path is the one answering A's plain refreshes: two statements each, where the provider on B takes three", async () => {
    const rp = clients.basic!
    const plain = grantCase('plain', registered(rp), tokens.basic, [], rp)
    const N = 6
    const statements = async (iam: IamClient, side: Side, url: string) => {
      const before = await scrapeMetrics(url)
      for (let i = 0; i < N; i++) expect((await ask(iam, side, plain)).status).toBe(200)
      const after = await scrapeMetrics(url)
      return ['read', 'write', 'transaction'].map((kind) => moved(before, after, 'iam_db_statements_total', { kind })).reduce((a, b) => a + b, 0)
    }
    const fast = await statements(paths.fast!, 'fast', op.iam.url)
    const provider = await statements(paths.provider!, 'provider', second.url)
    expect({ fast, provider }).toEqual({ fast: 2 * N, provider: 3 * N })
  })

  it('an access token of the two-statement path is one the provider accepts at userinfo and revokes, ending its grant, as it does its own', async () => {
    const rp = clients.revocable!
    const grant = grantCase('grant', registered(rp), tokens.revocable, [], rp)
    const revokeAs = (token: string) => ({ headers: { 'content-type': FORM, authorization: basicOf(rp.client.client_id, rp.secret!) }, body: form([['token', token]]) })
    const steps: Record<Side, unknown[]> = { fast: [], provider: [] }
    // each step at both IAMs before the next: on PostgreSQL a revocation at one is seen by the other
    const both = async <T>(step: (iam: IamClient, side: Side) => Promise<T>) => {
      const [fast, provider] = await Promise.all([step(paths.fast!, 'fast'), step(paths.provider!, 'provider')])
      return { fast, provider }
    }
    const granted = await both((iam, side) => ask(iam, side, grant))
    expect(granted.fast.status).toBe(200)
    // soft: what follows (userinfo, revocation) is checked whatever this answer's difference
    expect.soft(shownOf(granted.fast)).toEqual(shownOf(granted.provider))
    const token = { fast: granted.fast.token!, provider: granted.provider.token! }
    const seen = await both((iam, side) => userinfo(iam, side, token[side]))
    expect(seen.fast.status).toBe(200)
    expect(shownOf(seen.fast)).toEqual(shownOf(seen.provider))
    expect(await introspected(paths.fast!, 'fast', rp, token.fast)).toMatchObject({ active: true, client_id: rp.client.client_id })

    for (const side of ['fast', 'provider'] as const) {
      const revoked = await ask(paths[side]!, side, revokeAs(token[side]), REVOCATION)
      steps[side].push(revoked.status)
    }
    const after = await both(async (iam, side) => ({
      introspected: await introspected(iam, side, rp, token[side]),
      userinfo: shownOf(await userinfo(iam, side, token[side])),
      // revoking an access token revokes its grant (the library's revocation action): its refresh token too
      refreshed: shownOf(await ask(iam, side, grant)),
    }))
    steps.fast.push(after.fast)
    steps.provider.push(after.provider)
    expect(steps.fast).toEqual(steps.provider)
    expect(after.fast.introspected).toEqual({ active: false, lifetime: 'none' })
    expect(after.fast.userinfo.status).toBe(401)
    expect(after.fast.refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })
})
