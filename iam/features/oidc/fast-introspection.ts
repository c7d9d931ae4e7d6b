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
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'
import { compiledOnce } from '../../db/compiled-once'
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

/** The caller's client id and secret, from Basic (RFC 6749 section 2.3.1: form-encoded) or the body; undefined when neither or both. */
function clientCredentials(params: URLSearchParams, authorization: string | undefined): { id: string; secret: string; method: 'client_secret_basic' | 'client_secret_post' } | undefined {
  const inBody = params.has('client_secret')
  if (authorization) {
    if (inBody || !/^basic /i.test(authorization)) return undefined
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 1) return undefined
    try {
      const id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '))
      const secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '))
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
 * One statement: the caller's client (its auth method, whether it wants anything this path does
 * not render, its sealed secret), the token among the introspectable opaque models, its grant,
 * and its client's subject type. Compiled once (db/compiled-once.ts): it runs per API request.
 */
export const introspectionRow = compiledOnce((db: Kysely<Database>, args: { clientId: string; token: string }) =>
  db
    .selectFrom(sql<{ ok: number }>`(select 1 as ok)`.as('one'))
    .leftJoin('oidc_clients as c', (join) => join.on('c.client_id', '=', args.clientId))
    .leftJoin('oidc_payloads as t', (join) => join.on('t.id', '=', args.token).on('t.model', 'in', [...INTROSPECTABLE]))
    .leftJoin('oidc_payloads as g', (join) => join.on('g.model', '=', 'Grant').onRef('g.id', '=', 't.grant_id'))
    .leftJoin('oidc_clients as tc', (join) => join.on(sql`tc.client_id`, '=', sql`t.payload->>'clientId'`))
    .select([
      'c.secret_sealed as clientSecret',
      sql<string | null>`c.metadata->>'token_endpoint_auth_method'`.as('authMethod'),
      sql<boolean>`coalesce(c.metadata->>'subject_type' = 'pairwise' or c.metadata ? 'introspection_signed_response_alg' or c.metadata ? 'introspection_encrypted_response_alg', false)`.as('callerSpecial'),
      // the token's fields, not its whole payload: scalars are cheaper to send and read than JSON
      sql<boolean>`t.id is not null`.as('found'),
      't.consumed_at as consumedAt',
      sql<string | null>`t.payload->>'exp'`.as('exp'),
      sql<string | null>`t.payload->>'iat'`.as('iat'),
      sql<string | null>`t.payload->>'clientId'`.as('tokenClientId'),
      sql<string | null>`t.payload->>'accountId'`.as('accountId'),
      sql<string | null>`t.payload->>'grantId'`.as('grantId'),
      sql<string | null>`t.payload->>'sid'`.as('sid'),
      sql<string | null>`t.payload->>'scope'`.as('scope'),
      sql<unknown>`t.payload->'aud'`.as('aud'),
      sql<boolean>`coalesce(t.payload ?| array['jkt', 'x5t#S256', 'rar'] or (t.payload ? 'extra' and t.payload->'extra' <> '{}'::jsonb), false)`.as('tokenSpecial'),
      sql<boolean>`g.id is not null`.as('grantFound'),
      sql<string | null>`g.payload->>'exp'`.as('grantExp'),
      sql<string | null>`g.payload->>'clientId'`.as('grantClientId'),
      sql<string | null>`g.payload->>'accountId'`.as('grantAccountId'),
      sql<string | null>`tc.metadata->>'subject_type'`.as('tokenClientSubjectType'),
    ]),
)

/**
 * Opened secrets by their sealed form: opening costs a cipher per request, and a rotated or
 * deleted secret has another sealed form (or none), so an entry can never answer for a secret
 * that is no longer the client's. Bounded: cleared when full.
 */
const opened = new Map<string, string | null>()
const OPENED_MAX = 1000

function openedSecret(config: Pick<IamConfig, 'secrets'>, clientId: string, sealed: string): string | null {
  const key = `${clientId}\u0000${sealed}`
  const known = opened.get(key)
  if (known !== undefined) return known
  if (opened.size >= OPENED_MAX) opened.clear()
  const secret = openClientSecret(config, clientId, sealed)
  opened.set(key, secret)
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

  const row = (await introspectionRow(deps.db, { clientId: caller.id, token })).rows[0]
  if (!row?.clientSecret) return undefined
  if ((row.authMethod ?? 'client_secret_basic') !== caller.method || row.callerSpecial) return undefined
  const secret = openedSecret(deps.config, caller.id, row.clientSecret)
  if (secret === null || !sameSecret(secret, caller.secret)) return undefined

  const inactive = { active: false }
  if (!row.found) return undefined // not an opaque access token here: the provider knows what else it may be
  if (row.tokenSpecial || row.tokenClientSubjectType === 'pairwise') return undefined
  const nowSeconds = Math.floor(deps.now / 1000)
  const exp = row.exp === null ? NaN : Number(row.exp)
  if (row.consumedAt || !(exp > nowSeconds)) return inactive
  if (row.grantId) {
    if (!row.grantFound) return inactive
    if ((row.grantExp !== null && Number(row.grantExp) <= nowSeconds) || row.grantClientId !== row.tokenClientId || row.grantAccountId !== row.accountId) return inactive
  }
  const answer: Answer = { active: true }
  if (row.accountId) answer.sub = row.accountId
  const iat = row.iat === null ? undefined : Number(row.iat)
  Object.assign(answer, { client_id: row.tokenClientId, exp, iat, sid: row.sid ?? undefined, iss: deps.issuer, aud: row.aud ?? undefined, scope: row.scope || undefined, token_type: 'Bearer' })
  return JSON.parse(JSON.stringify(answer)) as Answer
}
