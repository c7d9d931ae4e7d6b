/**
 * The refresh token grant (RFC 6749 section 6) in two statements, for its common case: a
 * confidential app's back end redeeming its refresh token for a new access token (and ID token),
 * the token not yet due for rotation. oidc-provider's token endpoint answers the same after Koa's
 * middleware, client authentication (a Client built and schema-checked from the row at every
 * grant), the token's, grant's and account's models and its grant handler; this path reads the
 * client, the token, its grant and its account in one statement, stores the access token in the
 * library's own form (features/oidc/adapter.ts) and signs the ID token as the library does.
 *
 * It answers only what it can answer exactly as the provider would; anything else returns undefined
 * and the provider answers, errors included: another client authentication than a client secret in
 * the forms client-auth.ts reads, a request with an Origin or a DPoP proof (routes/oidc leaves them
 * to the provider), another content type than the form's, a duplicate or unknown parameter (`scope`,
 * `resource` and `authorization_details` among them), a wrong secret, an unknown client or one
 * with metadata this path does not render, and any token the provider would refuse, rotate, or
 * treat with more than this path does: not found, consumed (reuse: the provider revokes its grant),
 * expired, another client's, bound to a key, a certificate or a session, carrying a resource,
 * authorization details or a claims request for the ID token, a grant missing, expired, another
 * client's or account's or with rejected scopes or claims, an account gone or banned.
 *
 * What the provider's grant does, and this path with it (node_modules/oidc-provider, the locked
 * version: actions/grants/refresh_token.js, helpers/grant_common.js, models/id_token.js,
 * helpers/claims.js, models/formats/opaque.js):
 * - rotation: the library's default `rotateRefreshToken` (features/oidc/provider.ts sets none):
 *   never once the token family is a year old, else when 70% of the token's life has passed; a
 *   token due for it goes to the provider, which rotates it;
 * - the access token: opaque (no resource indicator: the defaultResource names none), living
 *   `ttl.AccessToken`, stored as the AccessToken model with the token's account, grant, session
 *   and claims, its grant type followed by `refresh_token`, and the grant's OpenID scope kept to
 *   the token's;
 * - the ID token, when the token's scope has `openid`: with `conformIdTokenClaims`, only the
 *   claims of the `openid` scope (features/oidc/provider.ts CLAIMS) the provider supports, picked
 *   from the account's claims, the token's `acr`, `amr` and `auth_time`; then the token's `nonce`
 *   and `sid`; `aud`, `exp` (`ttl.IdToken`), `iat`, `iss`; signed with the client's
 *   `id_token_signed_response_alg` by the first key the provider's keystore selects for it;
 * - the answer: `access_token`, `expires_in`, `id_token`, the same `refresh_token`, `scope`,
 *   `token_type: Bearer`, with `Cache-Control: no-store`.
 *
 * Held equal to the provider's endpoint (status, headers, body, the ID token's header and claims,
 * and what the stored token introspects to) by tests/gateway/refresh-token-equivalence.test.ts;
 * `oidc.fastRefreshToken: false` turns it off.
 */
import { randomBytes } from 'node:crypto'
import { CompactSign, importJWK, type JWK } from 'jose'
import type { Kysely, Selectable } from 'kysely'
import type { Database } from '../db/schema'
import { directStatement } from './direct'
import { clientCredentials, FORM_CONTENT_TYPE, sameSecret } from './client-auth'

const KNOWN_PARAMS = new Set(['grant_type', 'refresh_token', 'client_id', 'client_secret'])

/** The ID token algorithms the provider enables (features/oidc/provider.ts enabledJWA) and the key types they sign with. */
const ID_TOKEN_ALGS: Readonly<Record<string, { kty: string; crv?: string }>> = {
  RS256: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
}

/**
 * The client metadata this path renders: what features/oidc/clients.ts writes, what dynamic
 * registration stores (the library's defaults included), and what concerns only other endpoints.
 * Members that would change a refresh grant must hold their neutral value (NEUTRAL); a client
 * with any other member goes to the provider.
 */
const RENDERED_METADATA = new Set([
  'client_id',
  'client_name',
  'client_id_issued_at',
  'client_uri',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'contacts',
  'application_type',
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'response_types',
  'response_modes',
  'token_endpoint_auth_method',
  'scope',
  'default_max_age',
  'require_auth_time',
  'require_pushed_authorization_requests',
  'authorization_signed_response_alg',
  'introspection_signed_response_alg',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'authorization_details_types',
])

const NEUTRAL: Readonly<Record<string, (value: unknown) => boolean>> = {
  client_secret_expires_at: (value) => value === 0,
  subject_type: (value) => value === 'public',
  dpop_bound_access_tokens: (value) => value === false,
  tls_client_certificate_bound_access_tokens: (value) => value === false,
  require_signed_request_object: (value) => value === false,
  backchannel_user_code_parameter: (value) => value === false,
  id_token_signed_response_alg: (value) => typeof value === 'string' && value in ID_TOKEN_ALGS,
}

/** The token members this path copies or reads; one it does not know sends the request to the provider. */
const TOKEN_MEMBERS = new Set(['iat', 'exp', 'jti', 'kind', 'clientId', 'gty', 'grantId', 'sessionUid', 'expiresWithSession', 'accountId', 'acr', 'amr', 'authTime', 'claims', 'nonce', 'scope', 'sid', 'rotations', 'iiat'])

/** The account as the provider's `findAccount` gives it (features/oidc/accounts.ts). */
export interface RefreshAccount {
  accountId: string
  claims(use: string, scope: string): Promise<Record<string, unknown>>
}

/** The account's columns as the statement reads them (features/oidc/accounts.ts OidcAccountRow). */
export type RefreshAccountRow = Pick<Selectable<Database['users']>, 'id' | 'public_id' | 'email' | 'name' | 'email_verified' | 'banned_until' | 'deletion_due_at' | 'locale'>

export interface RefreshTokenDeps {
  db: Kysely<Database>
  /** ms since epoch */
  now: number
  issuer: string
  /** a client's secret from its sealed form, null when it cannot be opened (features/oidc/clients.ts openClientSecretOnce) */
  openSecret: (clientId: string, sealed: string) => string | null
  /** the account of a row, undefined where the provider's findAccount finds none (banned, being deleted) */
  account: (row: RefreshAccountRow) => RefreshAccount | undefined
  /** the claims of the `openid` scope, in the provider's order (its `claims.openid`, `sub` first when absent) */
  idTokenClaims: readonly string[]
  /** the claims the provider supports (every scope's claims, as its configuration collects them) */
  claimsSupported: ReadonlySet<string>
  /** the provider's signing keys, in the order handed to it (`jwks.keys`) */
  signingKeys: readonly JWK[]
  /** `ttl.AccessToken` for a token without a resource server, `ttl.IdToken`: seconds */
  accessTokenTtlSeconds: number
  idTokenTtlSeconds: number
  /** called after a token was stored, as the adapter's upsert sweeps expired artefacts now and then */
  stored?: () => void
}

export interface RefreshTokenRequest {
  /** the raw form body */
  body: Buffer
  /** the Content-Type header */
  contentType: string | undefined
  /** the Authorization header */
  authorization: string | undefined
}

export interface RefreshTokenAnswer {
  access_token: string
  expires_in: number
  id_token?: string
  refresh_token: string
  scope: string
  token_type: 'Bearer'
}

// only a UUID can name an account (users.public_id), as in the adapter's read of a token
const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'

interface RefreshRow {
  secret_sealed: string | null
  metadata: Record<string, unknown> | string
  payload: Record<string, unknown> | string | null
  consumed_at: Date | null
  expires_at: Date | null
  grant_payload: Record<string, unknown> | string | null
  grant_expires_at: Date | null
  user_id: number | null
  public_id: string | null
  email: string | null
  name: string | null
  email_verified: boolean | null
  banned_until: Date | null
  deletion_due_at: Date | null
  locale: string | null
}

/**
 * The client's row, the refresh token's, its grant's and its account's, in one statement: the
 * provider's client lookup, its adapter's token read (which reads the grant and account ahead)
 * and nothing else. $1 the client id, $2 the token.
 */
export const refreshRow = directStatement<RefreshRow>(
  `select c.secret_sealed, c.metadata, t.payload, t.consumed_at, t.expires_at, g.payload as grant_payload, g.expires_at as grant_expires_at,
     u.id as user_id, u.public_id::text as public_id, u.email, u.name, u.email_verified, u.banned_until, u.deletion_due_at, u.locale
   from oidc_clients c
   left join oidc_payloads t on t.model = 'RefreshToken' and t.id = $2
   left join oidc_payloads g on g.model = 'Grant' and g.id = t.grant_id
   left join users u on u.public_id = case when t.account_id ~ '${UUID_PATTERN}' then t.account_id::uuid end
   where c.client_id = $1`,
)

/**
 * The access token as the adapter's upsert stores it. A fresh 256-bit id cannot collide, so a plain
 * insert. $1 id, $2 the payload's JSON, $3 grant id, $4 account id, $5 expires_at.
 */
export const insertRefreshedAccessToken = directStatement<never>(
  "insert into oidc_payloads (model, id, payload, grant_id, user_code, uid, account_id, expires_at) values ('AccessToken', $1, $2, $3, null, null, $4, $5)",
)

const parsed = (value: Record<string, unknown> | string): Record<string, unknown> => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The ID token algorithm of a client this path renders, or null for the provider to answer. */
function renderedAlg(metadata: Record<string, unknown>): string | null {
  for (const [name, value] of Object.entries(metadata)) {
    const neutral = NEUTRAL[name]
    if (neutral ? !neutral(value) : !RENDERED_METADATA.has(name)) return null
  }
  return (metadata.id_token_signed_response_alg as string | undefined) ?? 'RS256'
}

/**
 * The key oidc-provider's keystore selects to sign with `alg` (its helpers/keystore.js
 * selectForSign) among the keys as it holds them: at start it gives every signing key `use: sig`,
 * and the key its only algorithm where it has one (an EC P-256 key ES256;
 * helpers/initialize_keystore.js). The first fitting key, one naming its alg before one that does not.
 */
function keyFor(keys: readonly JWK[], alg: string): JWK | undefined {
  const { kty, crv } = ID_TOKEN_ALGS[alg]!
  const held = keys.map((jwk) => ({ jwk, alg: jwk.alg ?? (jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : undefined) }))
  const fitting = held.filter(
    ({ jwk, alg: named }) =>
      jwk.kty === kty &&
      (named === undefined || named === alg) &&
      (jwk.use === undefined || jwk.use === 'sig') &&
      (!crv || jwk.crv === crv) &&
      (!Array.isArray(jwk.key_ops) || jwk.key_ops.includes('sign')),
  )
  // every key held has a use: only a named alg scores above the rest
  const score = (key: { alg: string | undefined }) => (key.alg ? 1 : 0)
  return fitting.sort((a, b) => score(b) - score(a))[0]?.jwk
}

/** How an ID token of one algorithm is signed: its protected header and the imported key. */
interface Signer {
  header: { alg: string; kid?: string }
  key: ReturnType<typeof importJWK>
}

// per key set and algorithm, the key selected and imported once (the keys are fixed once the
// provider is built), as jose caches the import of the provider's own; undefined: no key fits
const signers = new WeakMap<readonly JWK[], Map<string, Signer | undefined>>()
function signerFor(keys: readonly JWK[], alg: string): Signer | undefined {
  let byAlg = signers.get(keys)
  if (!byAlg) signers.set(keys, (byAlg = new Map()))
  if (!byAlg.has(alg)) {
    const jwk = keyFor(keys, alg)
    byAlg.set(alg, jwk && { header: jwk.kid ? { alg, kid: jwk.kid } : { alg }, key: importJWK(jwk, alg) })
  }
  return byAlg.get(alg)
}

/** The percentage of the token's life passed, as the library's BaseModel.ttlPercentagePassed. */
const ttlPercentagePassed = (nowSeconds: number, iat: number, exp: number) => Math.max(Math.min(100, Math.floor(100 * ((nowSeconds - iat) / (exp - iat)))), 0)

const YEAR_SECONDS = 365.25 * 24 * 60 * 60

/** The answer, or undefined for the provider to answer. */
export async function fastRefreshToken(deps: RefreshTokenDeps, request: RefreshTokenRequest): Promise<RefreshTokenAnswer | undefined> {
  if (!FORM_CONTENT_TYPE.test(request.contentType ?? '')) return undefined
  const params = new URLSearchParams(request.body.toString('utf8'))
  const names = [...params.keys()]
  if (names.some((name) => !KNOWN_PARAMS.has(name)) || new Set(names).size !== names.length) return undefined
  if (params.get('grant_type') !== 'refresh_token') return undefined
  const value = params.get('refresh_token')
  // the library's opaque values are 43 symbols; anything much longer it finds nothing for
  if (!value || value.length > 256) return undefined
  const caller = clientCredentials(params, request.authorization)
  if (!caller || caller.id.length > 128) return undefined

  const row = (await refreshRow(deps.db, [caller.id, value]))[0]
  if (!row?.secret_sealed) return undefined
  const metadata = parsed(row.metadata)
  const alg = renderedAlg(metadata)
  if (alg === null) return undefined
  if ((metadata.token_endpoint_auth_method ?? 'client_secret_basic') !== caller.method) return undefined
  if (!Array.isArray(metadata.grant_types) || !metadata.grant_types.includes('refresh_token')) return undefined
  const secret = deps.openSecret(caller.id, row.secret_sealed)
  if (secret === null || !sameSecret(secret, caller.secret)) return undefined

  // the token as the provider's RefreshToken.find would take it, and nothing it would refuse
  const now = deps.now
  const nowSeconds = Math.floor(now / 1000)
  if (row.payload === null || row.consumed_at !== null) return undefined
  if (row.expires_at !== null && row.expires_at.getTime() <= now) return undefined
  const token = parsed(row.payload)
  if (Object.keys(token).some((name) => !TOKEN_MEMBERS.has(name))) return undefined
  const { iat, exp } = token
  if (token.kind !== 'RefreshToken' || token.jti !== value || token.clientId !== caller.id) return undefined
  if (typeof iat !== 'number' || typeof exp !== 'number' || iat > nowSeconds || exp <= nowSeconds) return undefined
  if (token.expiresWithSession) return undefined
  if (token.claims !== undefined && (!isPlainObject(token.claims) || (token.claims.id_token !== undefined && (!isPlainObject(token.claims.id_token) || Object.keys(token.claims.id_token).length > 0)))) return undefined
  const scope = typeof token.scope === 'string' ? token.scope : ''
  const iiat = typeof token.iiat === 'number' && token.iiat ? token.iiat : iat
  if (nowSeconds - iiat < YEAR_SECONDS && ttlPercentagePassed(nowSeconds, iat, exp) >= 70) return undefined

  // its grant, as the provider's validateGrant would take it
  if (typeof token.grantId !== 'string' || row.grant_payload === null) return undefined
  if (row.grant_expires_at !== null && row.grant_expires_at.getTime() <= now) return undefined
  const grant = parsed(row.grant_payload)
  if (grant.kind !== 'Grant' || grant.clientId !== caller.id || grant.accountId !== token.accountId) return undefined
  if (typeof grant.exp === 'number' ? grant.exp <= nowSeconds : grant.exp !== undefined) return undefined
  if (grant.rejected !== undefined && (!isPlainObject(grant.rejected) || Object.keys(grant.rejected).length > 0)) return undefined

  // its account, as the provider's findAccount would give it
  if (row.user_id === null || row.public_id === null || row.public_id !== token.accountId) return undefined
  const account = deps.account({
    id: row.user_id,
    public_id: row.public_id,
    email: row.email!,
    name: row.name!,
    email_verified: row.email_verified!,
    banned_until: row.banned_until,
    deletion_due_at: row.deletion_due_at,
    locale: row.locale,
  })
  if (!account) return undefined

  // the access token's scope: the grant's OpenID scope kept to the token's (Grant.getOIDCScopeFiltered)
  const tokenScopes = new Set(scope ? scope.split(' ') : [])
  const grantScope = isPlainObject(grant.openid) && typeof grant.openid.scope === 'string' ? grant.openid.scope : ''
  const accessScope = grantScope
    .split(' ')
    .filter((name) => tokenScopes.has(name))
    .join(' ')
  if (!accessScope) return undefined

  const jti = randomBytes(32).toString('base64url')
  const gty = typeof token.gty === 'string' && token.gty && !token.gty.endsWith('refresh_token') ? `${token.gty} refresh_token` : token.gty
  // the AccessToken model's members in its order (models/access_token.js IN_PAYLOAD), undefined ones left out
  const stored: Record<string, unknown> = { iat: nowSeconds, exp: nowSeconds + deps.accessTokenTtlSeconds, jti, kind: 'AccessToken', clientId: caller.id }
  const copy = { gty, grantId: token.grantId, sessionUid: token.sessionUid, expiresWithSession: token.expiresWithSession, accountId: token.accountId, claims: token.claims, scope: accessScope, sid: token.sid }
  for (const [name, member] of Object.entries(copy)) if (member !== undefined) stored[name] = member

  const [, idToken] = await Promise.all([
    insertRefreshedAccessToken(deps.db, [jti, JSON.stringify(stored), token.grantId, token.accountId, new Date(now + deps.accessTokenTtlSeconds * 1000)]),
    tokenScopes.has('openid') ? signIdToken(deps, alg, caller.id, account, token, [...tokenScopes].join(' '), nowSeconds) : undefined,
  ])
  deps.stored?.()
  // the provider's member order (helpers/grant_response.js), id_token only when there is one
  return { access_token: jti, expires_in: deps.accessTokenTtlSeconds, ...(idToken === undefined ? {} : { id_token: idToken }), refresh_token: value, scope: accessScope, token_type: 'Bearer' }
}

/** The ID token the provider's IdToken.issue({ use: 'idtoken' }) signs for this grant. */
async function signIdToken(deps: RefreshTokenDeps, alg: string, clientId: string, account: RefreshAccount, token: Record<string, unknown>, scope: string, nowSeconds: number): Promise<string> {
  const signer = signerFor(deps.signingKeys, alg)
  // no key for the client's algorithm: the provider fails the request its own way
  if (!signer) throw new Error(`no signing key for ${alg}`)
  const available: Record<string, unknown> = { ...(await account.claims('id_token', scope)), sub: account.accountId, acr: token.acr, amr: token.amr, auth_time: token.authTime }
  const payload: Record<string, unknown> = {}
  // the `openid` scope's claims the provider supports, present on the account (helpers/claims.js), undefined ones left out
  for (const claim of deps.idTokenClaims) if (deps.claimsSupported.has(claim) && Object.hasOwn(available, claim) && available[claim] !== undefined) payload[claim] = available[claim]
  if (token.nonce !== undefined) payload.nonce = token.nonce
  if (token.sid !== undefined) payload.sid = token.sid
  Object.assign(payload, { aud: clientId, exp: nowSeconds + deps.idTokenTtlSeconds, iat: nowSeconds, iss: deps.issuer, sub: payload.sub })
  return new CompactSign(Buffer.from(JSON.stringify(payload))).setProtectedHeader(signer.header).sign(await signer.key)
}
