/**
 * Token introspection (RFC 7662) of an opaque access token in one statement: the common case of a
 * resource server asking, per request, whether a token it was handed is live. The provider's own
 * endpoint (oidc-provider's introspection action) answers the same, after Koa's middleware, the
 * client's authentication as a read of its own and one read per token model it tries; this path
 * reads the caller's client, the token, its grant and its client's subject type together.
 *
 * It answers only what it can answer exactly as the provider would; anything else returns
 * undefined and the provider answers: another client authentication than a client secret (Basic
 * or in the body), a duplicate or unknown parameter, a wrong secret or unknown client (the
 * provider's error answer), a token not stored as an opaque access token (JWT access tokens,
 * refresh tokens, unknown values), and tokens carrying what this path does not render (sender
 * constraints, authorization details, extra claims, pairwise subjects).
 */
import { timingSafeEqual } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'
import { directStatement } from '../../db/direct'
import { openClientSecret } from './clients'

const INTROSPECTABLE = ['AccessToken', 'ClientCredentials'] as const
const KNOWN_PARAMS = new Set(['token', 'token_type_hint', 'client_id', 'client_secret'])

export interface IntrospectionRequest {
  /** the raw form body */
  body: Buffer
  /** the Authorization header */
  authorization: string | undefined
}

type Answer = Record<string, unknown>

/** One form-encoded part; most have nothing encoded, and those are returned as they are. */
const formDecoded = (part: string): string => (/[%+]/.test(part) ? decodeURIComponent(part.replace(/\+/g, ' ')) : part)

/** The caller's client id and secret, from Basic (RFC 6749 section 2.3.1: form-encoded) or the body; undefined when neither or both. */
function clientCredentials(params: URLSearchParams, authorization: string | undefined): { id: string; secret: string; method: 'client_secret_basic' | 'client_secret_post' } | undefined {
  const inBody = params.has('client_secret')
  if (authorization) {
    if (inBody || !/^basic /i.test(authorization)) return undefined
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 1) return undefined
    try {
      const id = formDecoded(decoded.slice(0, colon))
      const secret = formDecoded(decoded.slice(colon + 1))
      if (params.has('client_id') && params.get('client_id') !== id) return undefined
      return { id, secret, method: 'client_secret_basic' }
    } catch {
      return undefined
    }
  }
  const id = params.get('client_id')
  const secret = params.get('client_secret')
  return inBody && id && secret ? { id, secret, method: 'client_secret_post' } : undefined
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * One statement: the caller's client (its sealed secret, its auth method, whether it wants anything
 * this path does not render), the token among the introspectable opaque models, its grant, and its
 * client's subject type. Sent past Kysely (db/direct.ts) as one JSON array column, as full
 * authentication's read is (features/sessions/auth-state-repo.ts): it runs on every request a
 * resource server makes, and pg builds a field descriptor and picks a parser per column per
 * execution, so one column costs less than nineteen. The token's fields are picked out of its
 * payload here rather than sent whole: scalars are cheaper to send and read than the JSON.
 * $1 the caller's client id, $2 the token.
 */
export const INTROSPECTION_SQL = `
    select json_build_array(
      c.secret_sealed,
      c.metadata->>'token_endpoint_auth_method',
      coalesce(c.metadata->>'subject_type' = 'pairwise' or c.metadata ? 'introspection_signed_response_alg' or c.metadata ? 'introspection_encrypted_response_alg', false),
      t.id is not null, t.consumed_at,
      t.payload->>'exp', t.payload->>'iat', t.payload->>'clientId', t.payload->>'accountId', t.payload->>'grantId', t.payload->>'sid', t.payload->>'scope', t.payload->'aud',
      coalesce(t.payload ?| array['jkt', 'x5t#S256', 'rar'] or (t.payload ? 'extra' and t.payload->'extra' <> '{}'::jsonb), false),
      g.id is not null, g.payload->>'exp', g.payload->>'clientId', g.payload->>'accountId',
      tc.metadata->>'subject_type'
    ) as r
    from (select 1) as one
    left join oidc_clients c on c.client_id = $1
    left join oidc_payloads t on t.id = $2 and t.model in (${INTROSPECTABLE.map((model) => `'${model}'`).join(', ')})
    left join oidc_payloads g on g.model = 'Grant' and g.id = t.grant_id
    left join oidc_clients tc on tc.client_id = t.payload->>'clientId'
  `
  .replace(/\s+/g, ' ')
  .trim()

type Text = string | null
type IntrospectionArray = [
  clientSecret: Text, authMethod: Text, callerSpecial: boolean,
  found: boolean, consumedAt: Text,
  exp: Text, iat: Text, tokenClientId: Text, accountId: Text, grantId: Text, sid: Text, scope: Text, aud: unknown,
  tokenSpecial: boolean,
  grantFound: boolean, grantExp: Text, grantClientId: Text, grantAccountId: Text,
  tokenClientSubjectType: Text,
]

export const introspectionRow = directStatement<{ r: IntrospectionArray }>(INTROSPECTION_SQL)

/**
 * Each client's secret as last opened, with the sealed form it came from: opening costs a cipher
 * per request, and a rotated or deleted secret has another sealed form (or none), so an entry
 * answers only while the stored form is the one it was opened from. Bounded: cleared when full.
 */
const opened = new Map<string, { sealed: string; secret: string | null }>()
const OPENED_MAX = 1000

function openedSecret(config: Pick<IamConfig, 'secrets'>, clientId: string, sealed: string): string | null {
  const known = opened.get(clientId)
  if (known?.sealed === sealed) return known.secret
  if (opened.size >= OPENED_MAX) opened.clear()
  const secret = openClientSecret(config, clientId, sealed)
  opened.set(clientId, { sealed, secret })
  return secret
}

/** The answer, or undefined for the provider to answer. */
export async function fastIntrospection(
  deps: { db: Kysely<Database>; config: Pick<IamConfig, 'secrets'>; issuer: string; now: number },
  request: IntrospectionRequest,
): Promise<Answer | undefined> {
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
  const [clientSecret, authMethod, callerSpecial, found, consumedAt, expText, iatText, tokenClientId, accountId, grantId, sid, scope, aud, tokenSpecial, grantFound, grantExp, grantClientId, grantAccountId, tokenClientSubjectType] = row
  if (!clientSecret) return undefined
  if ((authMethod ?? 'client_secret_basic') !== caller.method || callerSpecial) return undefined
  const secret = openedSecret(deps.config, caller.id, clientSecret)
  if (secret === null || !sameSecret(secret, caller.secret)) return undefined

  const inactive = { active: false }
  if (!found) return undefined // not an opaque access token here: the provider knows what else it may be
  if (tokenSpecial || tokenClientSubjectType === 'pairwise') return undefined
  const nowSeconds = Math.floor(deps.now / 1000)
  const exp = expText === null ? NaN : Number(expText)
  if (consumedAt || !(exp > nowSeconds)) return inactive
  if (grantId) {
    if (!grantFound) return inactive
    if ((grantExp !== null && Number(grantExp) <= nowSeconds) || grantClientId !== tokenClientId || grantAccountId !== accountId) return inactive
  }
  // the provider's members in its order, those without a value left out (as its JSON answer does)
  const answer: Answer = { active: true }
  if (accountId) answer.sub = accountId
  answer.client_id = tokenClientId
  answer.exp = exp
  if (iatText !== null) answer.iat = Number(iatText)
  if (sid !== null) answer.sid = sid
  answer.iss = deps.issuer
  if (aud !== null && aud !== undefined) answer.aud = aud
  if (scope) answer.scope = scope
  answer.token_type = 'Bearer'
  return answer
}
