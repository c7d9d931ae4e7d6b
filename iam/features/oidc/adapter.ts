/**
 * The OpenID Provider's storage (oidc-provider's adapter interface) on the IAM's database: every
 * artefact in oidc_payloads (migration 0009), clients in oidc_clients. Nothing lives only in
 * process memory, so any IAM instance can redeem what another issued.
 *
 * Single use: consume() is one UPDATE ... WHERE consumed_at IS NULL. The provider checks
 * `consumed` on the artefact it read and then consumes it, so two concurrent redemptions of one
 * code both pass its check; the UPDATE lets exactly one through and the other is refused here as a
 * replay, and its grant revoked, as RFC 9700 section 4.5 (codes) and 4.14.2 (rotated refresh
 * tokens) ask.
 */
import { errors } from 'oidc-provider'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import { findClientMetadata, saveRegisteredClient, deleteClient } from './clients'
import { refusedRegistration } from './registration-policy'
import type { IamConfig } from '../../lib/config-schema'
import { ACCOUNT_READ_AHEAD, accountKey, type OidcAccountRow } from './accounts'
import { currentProviderRequest, forgetReadAhead, readAhead, takeReadAhead } from './request-memo'
import { compiledOnce } from '../../fast/compiled-once'

type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; accountId?: string; consumed?: number }

/** The models whose artefacts belong to a grant: revoking the grant removes them. */
const SINGLE_USE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode'])

/**
 * The models whose artefacts name a grant and an account: reading one reads its grant and its
 * account in the same statement (request-memo.ts), for the provider's next two reads.
 */
const GRANT_BOUND = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode', 'DeviceCode', 'BackchannelAuthenticationRequest'])

// only a UUID can name an account (users.public_id): anything else joins no user instead of failing the cast
const ACCOUNT_OF_TOKEN = sql<string | null>`case when t.account_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then t.account_id::uuid end`

interface StoredRow {
  payload: unknown
  consumed_at: Date | null
  expires_at: Date | null
}

const grantKey = (id: string) => `Grant\u0000${id}`

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null)

export interface AdapterDeps {
  db: Kysely<Database>
  config: Pick<IamConfig, 'secrets'>
  /** ms since epoch; the provider judges expiry by its own clock (Date.now) and so does this */
  now: () => number
  /** runs housekeeping after the answer went out (lib/background.ts) */
  later?: (task: () => Promise<void>) => void
}

/**
 * Expired artefacts are swept this long after they expired: find() already ignores them, and the
 * margin keeps a sweep on one instance clear of another whose clock runs a little behind.
 */
const KEEP_EXPIRED_MS = 60 * 60_000
/** At most one sweep per process per this long: the DELETE uses the expiry index, but need not run per write. */
const SWEEP_EVERY_MS = 60_000
let lastSweep = 0

/** Deletes artefacts that expired more than KEEP_EXPIRED_MS ago. */
export async function sweepExpired(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('oidc_payloads').where('expires_at', '<', new Date(now - KEEP_EXPIRED_MS)).execute()
}

/**
 * After an artefact was stored: sweeps expired ones when the last sweep of this process is
 * SWEEP_EVERY_MS old. The one-statement client credentials grant stores its tokens past this
 * adapter (fast/client-credentials.ts), as does the two-statement refresh grant (fast/refresh-token.ts):
 * both call it too.
 */
export function sweepWhenDue(deps: Pick<AdapterDeps, 'db' | 'now' | 'later'>): void {
  const now = deps.now()
  if (!deps.later || now - lastSweep < SWEEP_EVERY_MS) return
  lastSweep = now
  deps.later(() => sweepExpired(deps.db, now))
}

/** An artefact's row as stored (`payload` its JSON text). */
type PayloadRow = {
  model: string
  id: string
  payload: string
  grant_id: string | null
  user_code: string | null
  uid: string | null
  account_id: string | null
  expires_at: Date | null
}

/**
 * Every artefact the provider saves (a token per grant, a code per sign-in): compiled once
 * (fast/compiled-once.ts), as the read of one by its id below.
 */
export const upsertPayload = compiledOnce((db: Kysely<Database>, row: PayloadRow) =>
  db
    .insertInto('oidc_payloads')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['model', 'id']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id,
        user_code: row.user_code,
        uid: row.uid,
        account_id: row.account_id,
        expires_at: row.expires_at,
      }),
    ),
)

/** An artefact of a model without a grant (a session, an interaction, a client-credentials token) by its id. */
export const payloadById = compiledOnce((db: Kysely<Database>, args: { model: string; id: string }) =>
  db.selectFrom('oidc_payloads').select(['payload', 'consumed_at', 'expires_at']).where('model', '=', args.model).where('id', '=', args.id),
)

/**
 * A grant-bound artefact (GRANT_BOUND) by `column`, with its grant and its account in the same
 * statement (request-memo.ts): every refresh grant, code redemption and token use starts with it,
 * so it is compiled once per lookup column (fast/compiled-once.ts) rather than built per call.
 */
const grantBoundQuery = (column: 'id' | 'user_code' | 'uid') => (db: Kysely<Database>, args: { model: string; value: string }) =>
  db
    .selectFrom('oidc_payloads as t')
    .leftJoin('oidc_payloads as g', (join) => join.on('g.model', '=', 'Grant').onRef('g.id', '=', 't.grant_id'))
    .leftJoin('users as u', (join) => join.on(sql`u.public_id`, '=', ACCOUNT_OF_TOKEN))
    .select(['t.payload', 't.consumed_at', 't.expires_at', 't.grant_id', 't.account_id'])
    .select(['g.payload as grantPayload', 'g.consumed_at as grantConsumedAt', 'g.expires_at as grantExpiresAt', sql<boolean>`g.id is not null`.as('grantFound')])
    .select(ACCOUNT_READ_AHEAD)
    .where('t.model', '=', args.model)
    .where(`t.${column}`, '=', args.value)
export const grantBoundById = compiledOnce(grantBoundQuery('id'))
export const grantBoundByUid = compiledOnce(grantBoundQuery('uid'))
export const grantBoundByUserCode = compiledOnce(grantBoundQuery('user_code'))

/** The adapter factory oidc-provider calls once per model name. */
export function createAdapterFactory(deps: AdapterDeps) {
  return (model: string) => (model === 'Client' ? new ClientAdapter(deps) : new PayloadAdapter(model, deps))
}

class PayloadAdapter {
  constructor(
    private readonly model: string,
    private readonly deps: AdapterDeps,
  ) {}

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    if (this.model === 'Grant') forgetReadAhead(grantKey(id))
    const expiresAt = typeof expiresIn === 'number' ? new Date(this.deps.now() + expiresIn * 1000) : null
    await upsertPayload(this.deps.db, {
      model: this.model,
      id,
      payload: JSON.stringify(payload),
      grant_id: this.model === 'Grant' ? id : text(payload.grantId),
      user_code: text(payload.userCode),
      uid: text(payload.uid),
      account_id: text(payload.accountId),
      expires_at: expiresAt,
    })
    sweepWhenDue(this.deps)
  }

  private async findWhere(column: 'id' | 'user_code' | 'uid', value: string): Promise<Payload | undefined> {
    if (GRANT_BOUND.has(this.model)) return this.findWithGrantAndAccount(column, value)
    if (column === 'id') return this.live((await payloadById(this.deps.db, { model: this.model, id: value })).rows[0])
    const row = await this.deps.db
      .selectFrom('oidc_payloads')
      .select(['payload', 'consumed_at', 'expires_at'])
      .where('model', '=', this.model)
      .where(column, '=', value)
      .executeTakeFirst()
    return this.live(row)
  }

  /** The artefact, with its grant and its account read ahead for the rest of the request. */
  private async findWithGrantAndAccount(column: 'id' | 'user_code' | 'uid', value: string): Promise<Payload | undefined> {
    const read = column === 'id' ? grantBoundById : column === 'uid' ? grantBoundByUid : grantBoundByUserCode
    const row = (await read(this.deps.db, { model: this.model, value })).rows[0]
    if (!row) return undefined
    if (row.grant_id) {
      readAhead(grantKey(row.grant_id), row.grantFound ? { payload: row.grantPayload, consumed_at: row.grantConsumedAt, expires_at: row.grantExpiresAt } : null)
    }
    if (row.account_id) {
      const account: OidcAccountRow | null =
        row.accountId === null ? null : { id: row.accountId, public_id: row.accountPublicId!, email: row.accountEmail!, name: row.accountName!, email_verified: row.accountEmailVerified!, banned_until: row.accountBannedUntil, deletion_due_at: row.accountDeletionDueAt, locale: row.accountLocale }
      readAhead(accountKey(row.account_id), account)
    }
    return this.live(row)
  }

  /** The payload of a stored row the provider may use: none when missing or expired; `consumed` from the column. */
  private live(row: StoredRow | undefined): Payload | undefined {
    if (!row) return undefined
    if (row.expires_at && row.expires_at.getTime() <= this.deps.now()) return undefined
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Payload
    return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload
  }

  find(id: string): Promise<Payload | undefined> {
    if (this.model === 'Grant') {
      const ahead = takeReadAhead<StoredRow | null>(grantKey(id))
      if (ahead.found) return Promise.resolve(this.live(ahead.value ?? undefined))
    }
    return this.findWhere('id', id)
  }

  findByUserCode(userCode: string): Promise<Payload | undefined> {
    return this.findWhere('user_code', userCode)
  }

  findByUid(uid: string): Promise<Payload | undefined> {
    return this.findWhere('uid', uid)
  }

  async consume(id: string): Promise<void> {
    const won = await this.deps.db
      .updateTable('oidc_payloads')
      .set({ consumed_at: new Date(this.deps.now()) })
      .where('model', '=', this.model)
      .where('id', '=', id)
      .where('consumed_at', 'is', null)
      .returning('grant_id')
      .executeTakeFirst()
    if (won || !SINGLE_USE.has(this.model)) return
    // another request redeemed it between the provider's read and this write: a replay
    const row = await this.deps.db.selectFrom('oidc_payloads').select('grant_id').where('model', '=', this.model).where('id', '=', id).executeTakeFirst()
    if (row?.grant_id) await revokeGrant(this.deps.db, row.grant_id)
    throw new errors.InvalidGrant('grant already redeemed')
  }

  async destroy(id: string): Promise<void> {
    if (this.model === 'Grant') forgetReadAhead(grantKey(id))
    await this.deps.db.deleteFrom('oidc_payloads').where('model', '=', this.model).where('id', '=', id).execute()
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    forgetReadAhead(grantKey(grantId))
    await this.deps.db.deleteFrom('oidc_payloads').where('model', '=', this.model).where('grant_id', '=', grantId).execute()
  }
}

/** Every artefact of one grant, the grant included: one statement. */
export async function revokeGrant(db: Kysely<Database>, grantId: string): Promise<void> {
  await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).execute()
}

const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post'])

/** RFC 6749 section 2.3.1: the Basic credentials are form-encoded. */
const formDecoded = (part: string): string => decodeURIComponent(part.replace(/\+/g, ' '))

/**
 * How the current request presents `clientId`'s secret: in the body (client_secret_post), in the
 * Authorization header (client_secret_basic), or not at all (undefined). The same reading as the
 * library's client authentication: a body secret first, then a Basic header.
 */
function presentedSecretMethod(request: object | undefined, clientId: string): string | undefined {
  const koa = request as { headers?: Record<string, string | string[] | undefined>; oidc?: { params?: Record<string, unknown> } } | undefined
  if (!koa) return undefined
  const params = koa.oidc?.params
  if (typeof params?.client_secret === 'string' && params.client_secret) return params.client_id === clientId ? 'client_secret_post' : undefined
  const authorization = koa.headers?.authorization
  if (typeof authorization !== 'string' || !/^basic /i.test(authorization)) return undefined
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  try {
    return colon > 0 && formDecoded(decoded.slice(0, colon)) === clientId ? 'client_secret_basic' : undefined
  } catch {
    return undefined
  }
}

/**
 * A client authenticates by the method it registered (`token_endpoint_auth_method`). oidc-provider
 * takes client_secret_basic and client_secret_post as one another at the token, introspection,
 * revocation, PAR and device authorization endpoints (its client authentication accepts either for
 * a client registered with one), so a secret sent the other way is refused here, as the provider's
 * client lookup of that request reads the client: the library's own `invalid_client` answer, and no
 * extra read. A lookup of the client for another reason (the token's client at introspection, the
 * device code's client on the device page) presents no secret of it and passes.
 */
function refuseAnotherSecretMethod(request: object | undefined, clientId: string, metadata: Record<string, unknown>): void {
  const registered = typeof metadata.token_endpoint_auth_method === 'string' ? metadata.token_endpoint_auth_method : 'client_secret_basic'
  if (!SECRET_METHODS.has(registered)) return
  const presented = presentedSecretMethod(request, clientId)
  if (presented && presented !== registered) {
    throw new errors.InvalidClientAuth('the provided authentication mechanism does not match the registered client authentication method')
  }
}

/**
 * Clients come from oidc_clients (admin CLI). Registration (when enabled) writes there too;
 * every other model's row shape does not apply to them.
 */
class ClientAdapter {
  constructor(private readonly deps: AdapterDeps) {}

  async find(id: string): Promise<Record<string, unknown> | undefined> {
    const metadata = await findClientMetadata(this.deps, id)
    if (metadata) refuseAnotherSecretMethod(currentProviderRequest(), id, metadata)
    return metadata
  }

  async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
    // the provider validated the shape; what a client may make itself is decided here, before
    // anything is stored (registration-policy.ts), as the library's own invalid_client_metadata
    const refusal = refusedRegistration(payload)
    if (refusal) throw new errors.InvalidClientMetadata(refusal)
    await saveRegisteredClient(this.deps, id, payload)
  }

  async destroy(id: string): Promise<void> {
    await deleteClient(this.deps.db, id)
  }

  async consume(): Promise<void> {}
  async findByUid(): Promise<undefined> {
    return undefined
  }
  async findByUserCode(): Promise<undefined> {
    return undefined
  }
  async revokeByGrantId(): Promise<void> {}
}
