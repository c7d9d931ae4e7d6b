/**
 * The OpenID Provider's relying parties, kept in oidc_clients (migration 0009) and managed by the
 * admin CLI (clients:create|list|show|rotate-secret|delete). A confidential client's secret is
 * shown once, at creation or rotation, and kept sealed (AES-256-GCM under secrets.totpKeys, the
 * client id as additional data), so a database dump alone does not hand out client secrets.
 */
import { randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'
import { openAesGcm, openedOnce, sealAesGcm } from '../../lib/aead'
import { compiledOnce } from '../../fast/compiled-once'

export const CLIENT_GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'] as const
export type ClientGrantType = (typeof CLIENT_GRANT_TYPES)[number]
/** what `--grant device_code` and friends stand for */
export const GRANT_ALIASES: Record<string, ClientGrantType> = { device_code: 'urn:ietf:params:oauth:grant-type:device_code' }

export interface NewClient {
  name: string
  redirectUris: string[]
  postLogoutRedirectUris?: string[]
  /** no secret: PKCE is then required (oidc-provider's pkce.required) */
  public?: boolean
  /** how a confidential client sends its secret to the token endpoint (RFC 6749 section 2.3.1); default the Authorization header */
  authMethod?: ClientAuthMethod
  /** no consent page: the team's own apps */
  firstParty?: boolean
  grants?: ClientGrantType[]
  /** space-separated; default `openid profile email offline_access` */
  scope?: string
  backchannelLogoutUri?: string
}

export interface ClientView {
  clientId: string
  name: string
  public: boolean
  /** none (public), client_secret_basic or client_secret_post */
  authMethod: string
  firstParty: boolean
  redirectUris: string[]
  postLogoutRedirectUris: string[]
  grants: string[]
  scope: string
  backchannelLogoutUri: string | null
  createdAt: string
}

type Deps = { db: Kysely<Database>; config: Pick<IamConfig, 'secrets'> }

export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number]

export class ClientInputError extends Error {
  override name = 'ClientInputError'
}

const DEFAULT_SCOPE = 'openid profile email offline_access'
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/

/**
 * A redirect URI as OAuth allows it (RFC 6749 section 3.1.2: absolute, no fragment) and as RFC 9700
 * section 2.1 wants it compared: exactly, so it is stored as given.
 */
function checkUri(label: string, value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ClientInputError(`${label}: not an absolute URL: ${value}`)
  }
  if (url.hash || value.includes('#')) throw new ClientInputError(`${label}: must not contain a fragment: ${value}`)
  if (url.username || url.password) throw new ClientInputError(`${label}: must not carry credentials: ${value}`)
  if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    throw new ClientInputError(`${label}: plain http is only for loopback addresses (RFC 9700 section 2.6): ${value}`)
  }
  return value
}

const aadOf = (clientId: string) => `oidc-client:${clientId}`

function sealSecret(config: Deps['config'], clientId: string, secret: string): string {
  const key = config.secrets.totpKeys?.[0]
  if (!key) throw new Error('secrets.totpKeys is not configured')
  return `${key.id}.${sealAesGcm(Buffer.from(key.key, 'base64url'), secret, aadOf(clientId))}`
}

/** A sealed client secret opened (null when no configured key opens it). */
export function openClientSecret(config: Deps['config'], clientId: string, sealed: string): string | null {
  const dot = sealed.indexOf('.')
  const key = config.secrets.totpKeys?.find((k) => k.id === sealed.slice(0, dot))
  return key ? openAesGcm(Buffer.from(key.key, 'base64url'), sealed.slice(dot + 1), aadOf(clientId)) : null
}

const openClientSecretCached = openedOnce((clientId: string, sealed: string, config: Deps['config']) => openClientSecret(config, clientId, sealed))

/** openClientSecret, remembered per client while its sealed form stays the same (lib/aead.ts openedOnce). */
export function openClientSecretOnce(config: Deps['config'], clientId: string, sealed: string): string | null {
  return openClientSecretCached(clientId, sealed, config)
}

/** The provider's client metadata for a new client (without the secret). */
export function clientMetadata(clientId: string, input: NewClient): Record<string, unknown> {
  const name = input.name.trim()
  if (!name || name.length > 100) throw new ClientInputError('name: 1-100 characters')
  const grants = [...new Set(input.grants?.length ? input.grants : (['authorization_code', 'refresh_token'] as ClientGrantType[]))]
  for (const grant of grants) if (!CLIENT_GRANT_TYPES.includes(grant)) throw new ClientInputError(`grant: unknown ${grant}`)
  if (input.public && grants.includes('client_credentials')) throw new ClientInputError('grant: client_credentials needs a confidential client (drop --public)')
  if (input.authMethod && !CLIENT_AUTH_METHODS.includes(input.authMethod)) throw new ClientInputError(`auth-method: one of ${CLIENT_AUTH_METHODS.join(', ')}`)
  if (input.public && input.authMethod) throw new ClientInputError('auth-method: a public client has no secret to send')
  const redirectUris = input.redirectUris.map((u) => checkUri('redirect-uri', u))
  if (grants.includes('authorization_code') && redirectUris.length === 0) throw new ClientInputError('redirect-uri: at least one for the authorization_code grant')
  const scope = input.scope?.trim() || DEFAULT_SCOPE
  for (const token of scope.split(/\s+/)) if (!SCOPE_TOKEN.test(token)) throw new ClientInputError(`scope: not a scope token: ${token}`)
  const metadata: Record<string, unknown> = {
    client_id: clientId,
    client_name: name,
    redirect_uris: redirectUris,
    post_logout_redirect_uris: (input.postLogoutRedirectUris ?? []).map((u) => checkUri('post-logout-redirect-uri', u)),
    grant_types: grants,
    response_types: grants.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: input.public ? 'none' : (input.authMethod ?? 'client_secret_basic'),
    scope,
  }
  if (input.backchannelLogoutUri) {
    metadata.backchannel_logout_uri = checkUri('backchannel-logout-uri', input.backchannelLogoutUri)
    metadata.backchannel_logout_session_required = true
  }
  return metadata
}

const newSecret = () => randomBytes(32).toString('base64url')

/** Creates a client; the secret (confidential clients) is returned here and never again. */
/**
 * 96 random bits in base64url, starting with a letter or digit: an id starting with `-` would read
 * as an option on a command line (`clients:show -abc`).
 */
export function newClientId(): string {
  for (;;) {
    const id = randomBytes(12).toString('base64url')
    if (/^[A-Za-z0-9]/.test(id)) return id
  }
}

export async function createClient(deps: Deps, input: NewClient, clientId = newClientId()): Promise<{ client: ClientView; clientSecret: string | null }> {
  const metadata = clientMetadata(clientId, input)
  const clientSecret = input.public ? null : newSecret()
  await deps.db
    .insertInto('oidc_clients')
    .values({
      client_id: clientId,
      metadata: JSON.stringify(metadata),
      secret_sealed: clientSecret ? sealSecret(deps.config, clientId, clientSecret) : null,
      first_party: input.firstParty ?? false,
    })
    .execute()
  const client = await showClient(deps.db, clientId)
  if (!client) throw new Error('client vanished after insert')
  return { client, clientSecret }
}

function view(row: { client_id: string; metadata: unknown; first_party: boolean; created_at: Date }): ClientView {
  const m = (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as Record<string, unknown>
  const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : [])
  return {
    clientId: row.client_id,
    name: String(m.client_name ?? ''),
    public: m.token_endpoint_auth_method === 'none',
    authMethod: String(m.token_endpoint_auth_method ?? 'client_secret_basic'),
    firstParty: row.first_party,
    redirectUris: list(m.redirect_uris),
    postLogoutRedirectUris: list(m.post_logout_redirect_uris),
    grants: list(m.grant_types),
    scope: String(m.scope ?? ''),
    backchannelLogoutUri: typeof m.backchannel_logout_uri === 'string' ? m.backchannel_logout_uri : null,
    createdAt: row.created_at.toISOString(),
  }
}

export async function listClients(db: Kysely<Database>): Promise<ClientView[]> {
  const rows = await db.selectFrom('oidc_clients').select(['client_id', 'metadata', 'first_party', 'created_at']).orderBy('created_at').orderBy('client_id').execute()
  return rows.map(view)
}

export async function showClient(db: Kysely<Database>, clientId: string): Promise<ClientView | null> {
  const row = await db.selectFrom('oidc_clients').select(['client_id', 'metadata', 'first_party', 'created_at']).where('client_id', '=', clientId).executeTakeFirst()
  return row ? view(row) : null
}

/** A new secret for a confidential client (the old one stops working at once); null when no such client or a public one. */
export async function rotateClientSecret(deps: Deps, clientId: string): Promise<string | null | 'public'> {
  const client = await showClient(deps.db, clientId)
  if (!client) return null
  if (client.public) return 'public'
  const secret = newSecret()
  await deps.db.updateTable('oidc_clients').set({ secret_sealed: sealSecret(deps.config, clientId, secret), updated_at: new Date() }).where('client_id', '=', clientId).execute()
  return secret
}

/** Deletes the client and every artefact issued to it (grants, tokens, codes). */
export async function deleteClient(db: Kysely<Database>, clientId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('oidc_clients').where('client_id', '=', clientId).executeTakeFirst()
    await trx.deleteFrom('oidc_payloads').where(sql`payload->>'clientId'`, '=', clientId).execute()
    return deleted.numDeletedRows > 0n
  })
}

/** The provider's read of a client, on every request that names one: compiled once (fast/compiled-once.ts). */
export const clientForProvider = compiledOnce((db: Kysely<Database>, args: { clientId: string }) =>
  db.selectFrom('oidc_clients').select(['metadata', 'secret_sealed', 'first_party']).where('client_id', '=', args.clientId),
)

/** The metadata oidc-provider loads a client from, with its secret opened. */
export async function findClientMetadata(deps: Deps, clientId: string): Promise<Record<string, unknown> | undefined> {
  const row = (await clientForProvider(deps.db, { clientId })).rows[0]
  if (!row) return undefined
  const metadata = { ...((typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as Record<string, unknown>) }
  metadata.first_party = row.first_party
  if (row.secret_sealed) {
    const secret = openClientSecretOnce(deps.config, clientId, row.secret_sealed)
    // a key removed from secrets.totpKeys: the client can no longer authenticate until rotated
    if (secret === null) return undefined
    metadata.client_secret = secret
  }
  return metadata
}

/** Dynamic registration (oidc.registration.enabled): the provider hands the full metadata. */
export async function saveRegisteredClient(deps: Deps, clientId: string, payload: Record<string, unknown>): Promise<void> {
  const { client_secret: secret, first_party: _ignored, ...metadata } = payload
  const sealed = typeof secret === 'string' ? sealSecret(deps.config, clientId, secret) : null
  await deps.db
    .insertInto('oidc_clients')
    .values({ client_id: clientId, metadata: JSON.stringify(metadata), secret_sealed: sealed, first_party: false })
    .onConflict((oc) => oc.column('client_id').doUpdateSet({ metadata: JSON.stringify(metadata), secret_sealed: sealed, updated_at: new Date() }))
    .execute()
}
