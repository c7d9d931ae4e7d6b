/**
 * Token introspection (RFC 7662) of an opaque access token in one statement: the common case of a
 * resource server asking, per request, whether a token it was handed is live. The provider's own
 * endpoint (oidc-provider's introspection action) answers the same, after Koa's middleware, the
 * client's authentication as a read of its own and one read per token model it tries; this path
 * reads the caller's client, the token, its grant and its client's subject type together.
 *
 * It answers only what it can answer exactly as the provider would; anything else returns
 * undefined and the provider answers: another client authentication than a client secret (Basic
 * in its canonical form, or in the body), another content type than the form's, a request with an Origin (routes/oidc leaves it to the provider's client-based
 * CORS check), a duplicate or unknown parameter, a wrong secret or unknown client (the
 * provider's error answer), a token not stored as an opaque access token (JWT access tokens,
 * refresh tokens, unknown values), and tokens carrying what this path does not render (sender
 * constraints, authorization details, extra claims, pairwise subjects).
 *
 * Who may learn about which token is features/oidc/introspection-policy.ts's rule, the provider's
 * too, handed in (`mayIntrospect`) as the secret opening is (`openSecret`): this folder stands
 * below the features (docs/architecture.md). It is decided on the statement's row (the token's
 * client and audience beside the caller's id), and a token the caller may not see is answered
 * inactive, as an unknown token is.
 *
 * Held equal to the provider's endpoint, status, headers and body, by
 * tests/gateway/introspection-equivalence.test.ts; `oidc.fastIntrospection: false` turns it off.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema'
import { directStatement } from './direct'
import { clientCredentials, FORM_CONTENT_TYPE, sameSecret } from './client-auth'

const INTROSPECTABLE = ['AccessToken', 'ClientCredentials'] as const
const KNOWN_PARAMS = new Set(['token', 'token_type_hint', 'client_id', 'client_secret'])

export interface IntrospectionRequest {
  /** the raw form body */
  body: Buffer
  /** the Content-Type header */
  contentType: string | undefined
  /** the Authorization header */
  authorization: string | undefined
}

/** What the answer needs besides the request: the database, the issuer, the time, and the provider's own rules. */
export interface IntrospectionDeps {
  db: Kysely<Database>
  issuer: string
  /** ms since epoch */
  now: number
  /** a client's secret from its sealed form, null when it cannot be opened (features/oidc/clients.ts openClientSecretOnce: remembered per sealed form) */
  openSecret: (clientId: string, sealed: string) => string | null
  /** who may learn about which token: the function the provider's allowedPolicy asks (features/oidc/introspection-policy.ts) */
  mayIntrospect: (caller: { clientId: string; authenticated: boolean }, token: { accessToken: boolean; clientId: unknown; aud: unknown }) => boolean
}

type Answer = Record<string, unknown>

/**
 * One statement: the caller's client (its sealed secret, its auth method, whether it wants anything
 * this path does not render), the token among the introspectable opaque models, its grant, and its
 * client's subject type. Sent past Kysely (direct.ts) as one JSON array column, as full
 * authentication's read is (features/sessions/auth-state-repo.ts): it runs on every request a
 * resource server makes, and pg builds a field descriptor and picks a parser per column per
 * execution, so one column costs less than nineteen. The token's and the grant's payloads come
 * whole: PostgreSQL compiles every expression of a statement again at each execution, and eight
 * field extractions per payload cost it more than printing the payload once.
 * The grant is read through a lateral subquery fenced by OFFSET 0, as full authentication's rows are
 * (features/sessions/auth-state-repo.ts): joined plainly, a generic plan made while the table held
 * few grants probed the primary key by model alone and filtered every grant by id.
 * $1 the caller's client id, $2 the token.
 */
export const INTROSPECTION_SQL = `
    select json_build_array(
      c.secret_sealed,
      c.metadata->>'token_endpoint_auth_method',
      coalesce(c.metadata->>'subject_type' = 'pairwise' or c.metadata ? 'introspection_signed_response_alg' or c.metadata ? 'introspection_encrypted_response_alg', false),
      t.consumed_at, t.payload,
      g.payload,
      tc.metadata->>'subject_type'
    ) as r
    from (select 1) as one
    left join oidc_clients c on c.client_id = $1
    left join oidc_payloads t on t.id = $2 and t.model in (${INTROSPECTABLE.map((model) => `'${model}'`).join(', ')})
    left join lateral (select g.payload from oidc_payloads g where g.model = 'Grant' and g.id = t.grant_id offset 0) g on true
    left join oidc_clients tc on tc.client_id = t.payload->>'clientId'
  `
  .replace(/\s+/g, ' ')
  .trim()

type Text = string | null
/** The fields of a stored token or grant payload this path reads (oidc-provider's own names). */
type Payload = Record<string, unknown> & { exp?: number; iat?: number; clientId?: string; accountId?: string; grantId?: string; sid?: string; scope?: string; aud?: unknown }
type IntrospectionArray = [
  clientSecret: Text, authMethod: Text, callerSpecial: boolean,
  consumedAt: Text, token: Payload | null,
  grant: Payload | null,
  tokenClientSubjectType: Text,
]

export const introspectionRow = directStatement<{ r: IntrospectionArray }>(INTROSPECTION_SQL)

const isEmptyObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0

/** A token this path does not render: sender-constrained (DPoP, mTLS), with authorization details, or with extra claims. */
function rendersOtherwise(token: Payload): boolean {
  return Object.hasOwn(token, 'jkt') || Object.hasOwn(token, 'x5t#S256') || Object.hasOwn(token, 'rar') || (Object.hasOwn(token, 'extra') && !isEmptyObject(token.extra))
}

/** The answer, or undefined for the provider to answer. */
export async function fastIntrospection(deps: IntrospectionDeps, request: IntrospectionRequest): Promise<Answer | undefined> {
  if (!FORM_CONTENT_TYPE.test(request.contentType ?? '')) return undefined
  const params = new URLSearchParams(request.body.toString('utf8'))
  const names = [...params.keys()]
  if (names.some((name) => !KNOWN_PARAMS.has(name)) || new Set(names).size !== names.length) return undefined
  const token = params.get('token')
  if (!token || token.length > 128) return undefined
  const hint = params.get('token_type_hint')
  if (hint !== null && hint !== 'access_token') return undefined
  const caller = clientCredentials(params, request.authorization)
  if (!caller || caller.id.length > 128) return undefined

  const row = (await introspectionRow(deps.db, [caller.id, token]))[0]?.r
  if (!row) return undefined
  const [clientSecret, authMethod, callerSpecial, consumedAt, stored, grant, tokenClientSubjectType] = row
  if (!clientSecret) return undefined
  if ((authMethod ?? 'client_secret_basic') !== caller.method || callerSpecial) return undefined
  const secret = deps.openSecret(caller.id, clientSecret)
  if (secret === null || !sameSecret(secret, caller.secret)) return undefined

  const inactive = { active: false }
  if (!stored) return undefined // not an opaque access token here: the provider knows what else it may be
  // a secret-authenticated caller, and an access token (the statement reads no other model)
  if (!deps.mayIntrospect({ clientId: caller.id, authenticated: true }, { accessToken: true, clientId: stored.clientId, aud: stored.aud })) return inactive
  if (rendersOtherwise(stored) || tokenClientSubjectType === 'pairwise') return undefined
  const nowSeconds = Math.floor(deps.now / 1000)
  const exp = stored.exp === undefined || stored.exp === null ? NaN : Number(stored.exp)
  if (consumedAt || !(exp > nowSeconds)) return inactive
  const tokenClientId = stored.clientId ?? null
  const accountId = stored.accountId ?? null
  if (stored.grantId) {
    if (!grant) return inactive
    if ((grant.exp !== undefined && grant.exp !== null && Number(grant.exp) <= nowSeconds) || (grant.clientId ?? null) !== tokenClientId || (grant.accountId ?? null) !== accountId) return inactive
  }
  // the provider's members in its order, those without a value left out (as its JSON answer does)
  const answer: Answer = { active: true }
  if (accountId) answer.sub = accountId
  answer.client_id = tokenClientId
  answer.exp = exp
  if (stored.iat !== undefined && stored.iat !== null) answer.iat = Number(stored.iat)
  if (stored.sid !== undefined && stored.sid !== null) answer.sid = stored.sid
  answer.iss = deps.issuer
  if (stored.aud !== undefined && stored.aud !== null) answer.aud = stored.aud
  if (stored.scope) answer.scope = stored.scope
  answer.token_type = 'Bearer'
  return answer
}
