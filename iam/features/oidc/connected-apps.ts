/**
 * "Connected apps" on the account page: the clients the OpenID Provider holds a grant for, on
 * behalf of the account, and taking one back (its grants, tokens and codes, in one statement).
 * Also the security events of the provider, which names accounts by their public id.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import { countSecurityEvent, recordUserAction } from '../security-events/repository'
import type { SecurityEventType } from '../../contract/security-event-types'
import { metadataDocumentHost } from './client-metadata-documents'
import { webhookData, webhookTypesOf } from '../webhooks/event-map'
import { enqueueWebhookEvent } from '../webhooks/outbox'
import { maybeSubscribed } from '../webhooks/subscriptions'

export interface ConnectedApp {
  clientId: string
  name: string
  /** the host of an app known only by its metadata document (not verified by us), else null */
  metadataDocumentHost: string | null
  /** what the app was allowed: OpenID scopes, and an API's own scopes */
  scopes: string[]
  /** when it was first allowed */
  since: string
}

type GrantPayload = { clientId?: string; openid?: { scope?: string }; resources?: Record<string, string>; iat?: number }

/** The account's connected apps, one per client, newest first. */
export async function listConnectedApps(db: Kysely<Database>, userId: number, now: number): Promise<ConnectedApp[]> {
  const rows = await db
    .selectFrom('oidc_payloads as p')
    .innerJoin('users as u', (join) => join.on(sql`u.public_id::text`, '=', sql.ref('p.account_id')))
    .leftJoin('oidc_clients as c', (join) => join.on('c.client_id', '=', sql<string>`p.payload->>'clientId'`))
    .select(['p.payload', 'c.metadata'])
    .where('u.id', '=', userId)
    .where('p.model', '=', 'Grant')
    .where((eb) => eb.or([eb('p.expires_at', 'is', null), eb('p.expires_at', '>', new Date(now))]))
    .execute()
  const apps = new Map<string, ConnectedApp>()
  for (const row of rows) {
    const grant = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as GrantPayload
    const metadata = (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as { client_name?: string } | null
    if (!grant.clientId) continue
    // an agent known by its metadata document (client-metadata-documents.ts) is no registered
    // client: it is named by its host, so the person can see it and take its access back. A
    // registered client deleted meanwhile has no name left; its grants go with it (clients.ts deleteClient).
    const documentHost = metadata ? null : metadataDocumentHost(grant.clientId)
    if (!metadata && !documentHost) continue
    const scopes = [...(grant.openid?.scope ?? '').split(' '), ...Object.values(grant.resources ?? {}).flatMap((s) => s.split(' '))].filter(Boolean)
    const since = new Date((grant.iat ?? 0) * 1000).toISOString()
    const known = apps.get(grant.clientId)
    if (known) {
      known.scopes = [...new Set([...known.scopes, ...scopes])]
      if (since < known.since) known.since = since
    } else {
      const name = metadata?.client_name ?? documentHost ?? grant.clientId
      apps.set(grant.clientId, { clientId: grant.clientId, name, metadataDocumentHost: documentHost, scopes: [...new Set(scopes)], since })
    }
  }
  return [...apps.values()].sort((a, b) => b.since.localeCompare(a.since))
}

/** Takes an app's access back: every grant, token and code it holds for the account. False when it held none. */
export async function revokeConnectedApp(
  db: Kysely<Database>,
  input: { userId: number; clientId: string; actor: { visitorRowId: number | null; ipAddress: string }; now: number },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('oidc_payloads')
      .where('account_id', '=', (eb) => eb.selectFrom('users').select(sql<string>`public_id::text`.as('p')).where('id', '=', input.userId))
      .where(sql`payload->>'clientId'`, '=', input.clientId)
      .where('model', '!=', 'Session')
      .executeTakeFirst()
    if (removed.numDeletedRows === 0n) return false
    await recordUserAction(trx, 'oidc_access_revoked', { userId: input.userId, actor: input.actor, details: { clientId: input.clientId }, at: new Date(input.now) })
    return true
  })
}

/** A security event of the provider, for the account a public id names (one statement; nothing when there is none). */
export async function recordOidcEvent(
  db: Kysely<Database>,
  input: { type: SecurityEventType; accountId: string; ipAddress: string | null; details: Record<string, unknown>; now: number },
): Promise<void> {
  const types = webhookTypesOf(input.type).filter((type) => maybeSubscribed(type))
  if (types.length === 0) {
    await insertOidcEvent(db, input)
    return
  }
  // an endpoint may want it: the outbox rows commit with the event (features/webhooks/outbox.ts)
  await db.transaction().execute(async (trx) => {
    if (!(await insertOidcEvent(trx, input))) return
    for (const type of types) {
      await enqueueWebhookEvent(trx, { type, subject: { publicId: input.accountId }, data: webhookData(input.details), at: new Date(input.now) })
    }
  })
}

async function insertOidcEvent(
  db: Kysely<Database>,
  input: { type: SecurityEventType; accountId: string; ipAddress: string | null; details: Record<string, unknown>; now: number },
): Promise<boolean> {
  const inserted = await db
    .insertInto('security_events')
    .columns(['type', 'user_id', 'visitor_id', 'ip_address', 'details', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select([
          sql<string>`${input.type}::text`.as('type'),
          'id',
          // INSERT ... SELECT infers no parameter types from the target columns: each is cast
          sql<null>`null::integer`.as('visitor_id'),
          sql<string | null>`${input.ipAddress}::text`.as('ip_address'),
          sql<string>`${JSON.stringify(input.details)}::jsonb`.as('details'),
          sql<Date>`${new Date(input.now).toISOString()}::timestamptz`.as('created_at'),
        ])
        .where(sql`public_id::text`, '=', input.accountId),
    )
    .executeTakeFirst()
  if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) return false
  countSecurityEvent({ type: input.type, userId: null, visitorRowId: null, ipAddress: input.ipAddress, at: new Date(input.now) })
  return true
}
