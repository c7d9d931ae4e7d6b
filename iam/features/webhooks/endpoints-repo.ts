/** Webhook endpoints and their figures (SQL only; features/webhooks/endpoints.ts orchestrates). */
import { sql, type Kysely, type SqlBool, type Transaction } from 'kysely'
import { ORGANIZATION_WEBHOOK_FAMILIES } from '../../contract/webhook-events'
import type { Database } from '../../db/schema'

/**
 * Whose endpoints a statement may reach: the platform's (administrators, /admin/webhooks) or one
 * organization's (its owners, /orgs/:orgId/webhooks; the organization's public id). Every
 * statement that names an endpoint takes one and ANDs `inScope`, so an endpoint of another
 * organization, or of the platform, is not found from an organization's routes, and no
 * organization's endpoint is from the administrators'.
 */
export type EndpointScope = { kind: 'platform' } | { kind: 'organization'; organizationId: string }

export const PLATFORM: EndpointScope = { kind: 'platform' }

/** The predicate of `scope` on webhook_endpoints (named `table` in the statement). */
export const inScope = (scope: EndpointScope, table: 'webhook_endpoints' | 'e' = 'webhook_endpoints') =>
  scope.kind === 'platform'
    ? sql<SqlBool>`${sql.ref(`${table}.organization_id`)} is null`
    : sql<SqlBool>`${sql.ref(`${table}.organization_id`)} = ${scope.organizationId}::uuid`

export const ENDPOINT_COLUMNS = [
  'e.id',
  'e.public_id',
  'e.url',
  'e.description',
  'e.event_types',
  'e.enabled',
  'e.disabled_reason',
  'e.previous_secret_expires_at',
  'e.created_at',
  'e.updated_at',
] as const

export interface EndpointRow {
  id: number
  public_id: string
  url: string
  description: string
  event_types: string[]
  enabled: boolean
  disabled_reason: string | null
  previous_secret_expires_at: Date | null
  created_at: Date
  updated_at: Date
  attempts24h: number
  succeeded24h: number
  pending: number
  dead: number
}

/**
 * Endpoints (all, or the one `publicId` names) with their last day's attempts and their queue. Each
 * endpoint's attempts of the day and its deliveries are read once, every figure counted in the same
 * pass (`filter`): its deliveries have no index by status, so a count of each kind would walk them
 * all again. The delivering attempts are kept on their delivery rows (migration 0029), the others
 * in webhook_attempts; a row of an earlier release has `last_duration_ms` null and its delivering
 * attempt in webhook_attempts, so it is not counted twice.
 */
export async function selectEndpoints(db: Kysely<Database>, now: Date, scope: EndpointScope, publicId?: string): Promise<EndpointRow[]> {
  const since = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString()
  let query = db
    .selectFrom('webhook_endpoints as e')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('webhook_attempts as a')
          .select([sql<number>`count(*)::int`.as('total'), sql<number>`(count(*) filter (where a.status between 200 and 299))::int`.as('succeeded')])
          .whereRef('a.endpoint_id', '=', 'e.id')
          .where(sql<boolean>`a.attempted_at > ${since}::timestamptz`)
          .as('att'),
      (join) => join.onTrue(),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('webhook_deliveries as d')
          .select([
            sql<number>`(count(*) filter (where d.status = 'delivered' and d.delivered_at > ${since}::timestamptz and d.last_duration_ms is not null))::int`.as('delivered'),
            sql<number>`(count(*) filter (where d.status = 'pending'))::int`.as('pending'),
            sql<number>`(count(*) filter (where d.status = 'dead'))::int`.as('dead'),
          ])
          .whereRef('d.endpoint_id', '=', 'e.id')
          .as('del'),
      (join) => join.onTrue(),
    )
    .select(ENDPOINT_COLUMNS)
    .select([
      sql<number>`att.total + del.delivered`.as('attempts24h'),
      sql<number>`att.succeeded + del.delivered`.as('succeeded24h'),
      'del.pending as pending',
      'del.dead as dead',
    ])
    .where(inScope(scope, 'e'))
  if (publicId !== undefined) query = query.where('e.public_id', '=', publicId)
  return (await query.orderBy('e.id').execute()) as EndpointRow[]
}

/**
 * The patterns every enabled endpoint subscribes to, as far as it can hear them: an organization's
 * `*` stands for its organization's families alone (migration 0030), so an owner's catch-all
 * endpoint does not make every sign-in of the platform run the outbox statement for nothing.
 */
export async function selectSubscribedPatterns(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('webhook_endpoints').select(['event_types', 'organization_id']).where('enabled', '=', true).execute()
  return rows.flatMap((r) => (r.organization_id === null ? r.event_types : r.event_types.flatMap((p) => (p === '*' ? ORGANIZATION_WILDCARDS : [p]))))
}

const ORGANIZATION_WILDCARDS = ORGANIZATION_WEBHOOK_FAMILIES.map((family) => `${family}.*`)

export async function endpointRowId(db: Kysely<Database>, scope: EndpointScope, publicId: string): Promise<number | null> {
  const row = await db.selectFrom('webhook_endpoints').select('id').where('public_id', '=', publicId).where(inScope(scope)).executeTakeFirst()
  return row?.id ?? null
}

/**
 * Inside the transaction that deletes an organization (features/organizations/organizations.ts),
 * before its row: the organization's endpoints with their deliveries and attempts, as
 * deleteEndpoint deletes one (the foreign key's cascade would leave the deliveries behind). Other
 * instances drop the endpoints' patterns from their snapshot on their next poll.
 */
export async function deleteOrganizationEndpoints(trx: Transaction<Database>, organizationId: string): Promise<void> {
  await deleteWithLogs(trx, { kind: 'organization', organizationId })
}

/**
 * Deletes the endpoints of `scope` (the one of them named `publicId`, when given) with their deliveries and attempts (no foreign key cascades to
 * them: migrations 0028 and 0029); how many endpoints. The deliveries go first, their endpoint
 * last: the worker locks a delivery before its endpoint (features/webhooks/deliver.ts, a failure's
 * transaction and the success statement), and a deletion that locked the endpoint first and then
 * waited for a delivery the worker held could deadlock with it (PostgreSQL aborts one of the two).
 */
export async function deleteWithLogs(trx: Transaction<Database>, scope: EndpointScope, publicId?: string): Promise<number> {
  let endpoints = trx.selectFrom('webhook_endpoints').select('id').where(inScope(scope))
  if (publicId !== undefined) endpoints = endpoints.where('public_id', '=', publicId)
  const endpointIds = (await endpoints.execute()).map((r) => r.id)
  if (endpointIds.length === 0) return 0
  await trx.deleteFrom('webhook_deliveries').where('endpoint_id', 'in', endpointIds).execute()
  await trx.deleteFrom('webhook_attempts').where('endpoint_id', 'in', endpointIds).execute()
  const deleted = await trx.deleteFrom('webhook_endpoints').where('id', 'in', endpointIds).returning('id').execute()
  return deleted.length
}
