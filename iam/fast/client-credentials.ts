/**
 * The client credentials grant (RFC 6749 section 4.4) in two statements: the common case of a
 * service asking for an access token of its own, often once per job or per minute, by many
 * workers. oidc-provider's token endpoint answers the same after Koa's middleware, its parameter
 * assembly, client authentication (a Client built and schema-checked from the row at every grant)
 * and its grant handler; this path reads the client's row and stores the token, as the provider's
 * adapter would (features/oidc/adapter.ts), in the library's own stored form.
 *
 * It answers only what it can answer exactly as the provider would; anything else returns undefined
 * and the provider answers, errors included: another client authentication than a client secret
 * in the forms client-auth.ts reads, another content type than the form's, a request with an
 * Origin or a DPoP proof (routes/oidc leaves them to the provider), a duplicate or unknown parameter
 * (`resource` and `authorization_details` among them), a scope the provider would refuse, a wrong
 * secret or unknown client, a client not allowed the grant, and a client with metadata this path
 * does not render (anything beyond what the admin CLI and the console write, such as
 * `dpop_bound_access_tokens`, an expiring secret or an mTLS method).
 *
 * What the provider's grant does, and this path with it (node_modules/oidc-provider, actions/token.js
 * and actions/grants/client_credentials.js of the locked version):
 * - a requested scope without a resource indicator keeps only the provider's known scopes
 *   (`scopes`, in the order asked, each once); a known scope outside the client's registered
 *   `scope` is refused (here: left to the provider);
 * - no resource indicator: the defaultResource of features/oidc/provider.ts names none, so the
 *   token is opaque, with no audience, living `oidc.ttl.clientCredentialsMs`;
 * - the token's value is its id: 256 bits of randomness in the URL-safe alphabet (the library's
 *   `formats.bitsOfOpaqueRandomness` default), stored as the ClientCredentials model with `iat`,
 *   `exp`, `jti`, `kind`, `clientId` and `scope`;
 * - the answer: `access_token`, `expires_in`, `scope` (when any), `token_type: Bearer`, with
 *   `Cache-Control: no-store`.
 *
 * Held equal to the provider's endpoint (status, headers, body, and what the stored token
 * introspects to) by tests/gateway/client-credentials-equivalence.test.ts;
 * `oidc.fastClientCredentials: false` turns it off.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema'
import { directStatement } from './direct'
import { clientCredentials, FORM_CONTENT_TYPE, sameSecret } from './client-auth'

const KNOWN_PARAMS = new Set(['grant_type', 'scope', 'client_id', 'client_secret'])

/** oidc-provider's scope syntax check (RFC 6749 section 3.3): tokens of %x21 / %x23-5B / %x5D-7E, one space between. */
const SCOPE_SYNTAX = /^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/

/**
 * The client metadata this path renders: what features/oidc/clients.ts writes, and what dynamic
 * registration adds without changing a client credentials grant. A client with any other member
 * goes to the provider.
 */
const RENDERED_METADATA = new Set([
  'client_id',
  'client_name',
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'response_types',
  'token_endpoint_auth_method',
  'scope',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'client_id_issued_at',
  'client_secret_expires_at',
])

export interface ClientCredentialsRequest {
  /** the raw form body */
  body: Buffer
  /** the Content-Type header */
  contentType: string | undefined
  /** the Authorization header */
  authorization: string | undefined
}

export interface ClientCredentialsDeps {
  db: Kysely<Database>
  /** ms since epoch */
  now: number
  /** a client's secret from its sealed form, null when it cannot be opened (features/oidc/clients.ts openClientSecretOnce) */
  openSecret: (clientId: string, sealed: string) => string | null
  /** the provider's `scopes` (features/oidc/provider.ts) */
  knownScopes: ReadonlySet<string>
  /** the token's lifetime: the provider's `ttl.ClientCredentials` for a token without a resource server */
  ttlSeconds: number
  /** called after a token was stored, as the adapter's upsert sweeps expired artefacts now and then */
  stored?: () => void
}

export interface ClientCredentialsAnswer {
  access_token: string
  expires_in: number
  scope?: string
  token_type: 'Bearer'
}

/** The client's row. $1 the client id. */
export const clientRow = directStatement<{ secret_sealed: string | null; metadata: Record<string, unknown> | string }>(
  'select secret_sealed, metadata from oidc_clients where client_id = $1',
)

/**
 * The token as the adapter's upsert stores it: no grant, user code, uid or account. A fresh 256-bit
 * id cannot collide, so a plain insert. $1 id, $2 the payload's JSON, $3 expires_at.
 */
export const insertClientCredentials = directStatement<never>(
  "insert into oidc_payloads (model, id, payload, grant_id, user_code, uid, account_id, expires_at) values ('ClientCredentials', $1, $2, null, null, null, null, $3)",
)

/** The scope the provider's grant gives, or null when it would refuse the request (then it answers). */
function grantedScope(requested: string | null, registered: unknown, known: ReadonlySet<string>): string | undefined | null {
  if (requested === null) return undefined
  if (!SCOPE_SYNTAX.test(requested)) return null
  const kept = [...new Set(requested.split(' ').filter((scope) => known.has(scope)))]
  if (typeof registered === 'string' && registered) {
    const allowed = new Set(registered.split(' '))
    if (kept.some((scope) => !allowed.has(scope))) return null
  } else if (registered !== undefined) return null
  return kept.join(' ') || undefined
}

/** The answer, or undefined for the provider to answer. */
export async function fastClientCredentials(deps: ClientCredentialsDeps, request: ClientCredentialsRequest): Promise<ClientCredentialsAnswer | undefined> {
  if (!FORM_CONTENT_TYPE.test(request.contentType ?? '')) return undefined
  const params = new URLSearchParams(request.body.toString('utf8'))
  const names = [...params.keys()]
  if (names.some((name) => !KNOWN_PARAMS.has(name)) || new Set(names).size !== names.length) return undefined
  if (params.get('grant_type') !== 'client_credentials') return undefined
  const caller = clientCredentials(params, request.authorization)
  if (!caller || caller.id.length > 128) return undefined

  const row = (await clientRow(deps.db, [caller.id]))[0]
  if (!row?.secret_sealed) return undefined
  const metadata = (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as Record<string, unknown>
  if (Object.keys(metadata).some((name) => !RENDERED_METADATA.has(name))) return undefined
  if (metadata.client_secret_expires_at !== undefined && metadata.client_secret_expires_at !== 0) return undefined
  if ((metadata.token_endpoint_auth_method ?? 'client_secret_basic') !== caller.method) return undefined
  if (!Array.isArray(metadata.grant_types) || !metadata.grant_types.includes('client_credentials')) return undefined
  const secret = deps.openSecret(caller.id, row.secret_sealed)
  if (secret === null || !sameSecret(secret, caller.secret)) return undefined
  const scope = grantedScope(params.get('scope'), metadata.scope, deps.knownScopes)
  if (scope === null) return undefined

  // the library's opaque value: nanoid of 43 symbols of the URL-safe alphabet, 6 bits each
  const jti = randomBytes(32).toString('base64url')
  const iat = Math.floor(deps.now / 1000)
  const exp = iat + deps.ttlSeconds
  const payload: Record<string, unknown> = { iat, exp, jti, kind: 'ClientCredentials', clientId: caller.id }
  if (scope !== undefined) payload.scope = scope
  await insertClientCredentials(deps.db, [jti, JSON.stringify(payload), new Date(deps.now + deps.ttlSeconds * 1000)])
  deps.stored?.()
  const answer: ClientCredentialsAnswer = { access_token: jti, expires_in: deps.ttlSeconds, token_type: 'Bearer' }
  return scope === undefined ? answer : { access_token: jti, expires_in: deps.ttlSeconds, scope, token_type: 'Bearer' }
}
