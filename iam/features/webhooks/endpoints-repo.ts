/** Webhook endpoints and their figures (SQL only; features/webhooks/endpoints.ts orchestrates). */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'

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

/** How many of endpoint `e`'s deliveries were delivered after `since` by an attempt kept on their row. */
const deliveredSince = (since: Date) =>
  sql<number>`select count(*)::int from webhook_deliveries d
    where d.endpoint_id = e.id and d.status = 'delivered' and d.delivered_at > ${since.toISOString()}::timestamptz and d.last_duration_ms is not null`

/** Endpoints (all, or the one `publicId` names) with their last day's attempts and their queue. */
export async function selectEndpoints(db: Kysely<Database>, now: Date, publicId?: string): Promise<EndpointRow[]> {
  const since = new Date(now.getTime() - 24 * 60 * 60 * 1000)
  let query = db
    .selectFrom('webhook_endpoints as e')
    .select(ENDPOINT_COLUMNS)
    .select([
      // the delivering attempts are kept on their delivery rows (migration 0029), the others in webhook_attempts
      sql<number>`(select count(*)::int from webhook_attempts a where a.endpoint_id = e.id and a.attempted_at > ${since.toISOString()}::timestamptz)
        + (${deliveredSince(since)})`.as('attempts24h'),
      sql<number>`(select count(*)::int from webhook_attempts a where a.endpoint_id = e.id and a.attempted_at > ${since.toISOString()}::timestamptz and a.status between 200 and 299)
        + (${deliveredSince(since)})`.as('succeeded24h'),
      sql<number>`(select count(*)::int from webhook_deliveries d where d.endpoint_id = e.id and d.status = 'pending')`.as('pending'),
      sql<number>`(select count(*)::int from webhook_deliveries d where d.endpoint_id = e.id and d.status = 'dead')`.as('dead'),
    ])
  if (publicId !== undefined) query = query.where('e.public_id', '=', publicId)
  return (await query.orderBy('e.id').execute()) as EndpointRow[]
}

/** The patterns every enabled endpoint subscribes to. */
export async function selectSubscribedPatterns(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('webhook_endpoints').select('event_types').where('enabled', '=', true).execute()
  return rows.flatMap((r) => r.event_types)
}

export async function endpointRowId(db: Kysely<Database>, publicId: string): Promise<number | null> {
  const row = await db.selectFrom('webhook_endpoints').select('id').where('public_id', '=', publicId).executeTakeFirst()
  return row?.id ?? null
}
