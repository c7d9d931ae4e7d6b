/**
 * The delivery log an administrator reads (each delivery with every attempt), manual replays, and
 * the queue figures of the metrics.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamContext } from '../../context'
import { endpointRowId, type EndpointScope } from './endpoints-repo'
import { waitsBehindEarlier } from './queue-order'

type Ctx = Pick<IamContext, 'db' | 'now'>
type DeliveryStatus = 'pending' | 'delivered' | 'dead'

export interface DeliveryView {
  id: number
  msgId: string
  eventType: string
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: string | null
  deliveredAt: string | null
  createdAt: string
  payload: Record<string, unknown>
  log: Array<{ at: string; status: number | null; durationMs: number; error: string | null; responseExcerpt: string | null }>
}

/** The endpoint's deliveries, newest first, each with its attempts in order; null when there is no such endpoint. */
export async function listDeliveries(ctx: Ctx, scope: EndpointScope, publicId: string, query: { status?: DeliveryStatus; limit: number }): Promise<DeliveryView[] | null> {
  const endpointId = await endpointRowId(ctx.db, scope, publicId)
  if (endpointId === null) return null
  let select = ctx.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'msg_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'delivered_at', 'created_at', 'payload', 'last_status', 'last_duration_ms', 'last_excerpt'])
    .where('endpoint_id', '=', endpointId)
  if (query.status) select = select.where('status', '=', query.status)
  const rows = await select.orderBy('id', 'desc').limit(query.limit).execute()
  const attempts = rows.length
    ? await ctx.db
        .selectFrom('webhook_attempts')
        .select(['delivery_id', 'attempted_at', 'status', 'duration_ms', 'error', 'response_excerpt'])
        .where('delivery_id', 'in', rows.map((r) => r.id))
        .orderBy('id')
        .execute()
    : []
  return rows.map((r) => ({
    id: r.id,
    msgId: r.msg_id,
    eventType: r.event_type,
    status: r.status,
    attempts: r.attempts,
    // null for a pending delivery waiting behind an earlier one of its account (queue-order.ts)
    nextAttemptAt: r.status === 'pending' && !waitsBehindEarlier(r.next_attempt_at) ? r.next_attempt_at.toISOString() : null,
    deliveredAt: r.delivered_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    payload: r.payload,
    log: [
      ...attempts
        .filter((a) => a.delivery_id === r.id)
        .map((a) => ({ at: a.attempted_at.toISOString(), status: a.status, durationMs: a.duration_ms, error: a.error, responseExcerpt: a.response_excerpt })),
      ...deliveringAttempt(r),
    ],
  }))
}

/**
 * The attempt that delivered it, kept on the delivery row rather than in webhook_attempts
 * (migration 0029): always the last one. None for a row delivered before that migration, whose
 * delivering attempt is a webhook_attempts row like the others.
 */
function deliveringAttempt(r: { status: DeliveryStatus; delivered_at: Date | null; last_status: number | null; last_duration_ms: number | null; last_excerpt: string | null }) {
  if (r.status !== 'delivered' || r.delivered_at === null || r.last_duration_ms === null) return []
  return [{ at: r.delivered_at.toISOString(), status: r.last_status, durationMs: r.last_duration_ms, error: null, responseExcerpt: r.last_excerpt }]
}

export type ReplayResult = { ok: true; replayed: number } | { ok: false; code: 'webhook_not_found' | 'delivery_not_found' }

/**
 * Queues the endpoint's deliveries that `which` picks again at once, their schedule started over
 * (their `webhook-id` unchanged), in one statement. A delivered one's delivering attempt, kept on
 * its row (migration 0029), moves to webhook_attempts first, so its log keeps it. How many.
 */
async function requeue(db: Kysely<Database>, endpointId: number, now: Date, which: RawBuilder<boolean>): Promise<number> {
  const { rows } = await sql<{ replayed: number }>`
    with o as (
      select id, endpoint_id, status, delivered_at, last_status, last_duration_ms, last_excerpt from webhook_deliveries
      where endpoint_id = ${endpointId} and ${which}
      for update
    ), kept as (
      insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status, duration_ms, error, response_excerpt)
      select id, endpoint_id, delivered_at, last_status, last_duration_ms, null, last_excerpt from o
      where status = 'delivered' and delivered_at is not null and last_duration_ms is not null
      order by id
    ), r as (
      update webhook_deliveries d set status = 'pending', attempts = 0, next_attempt_at = ${now.toISOString()}::timestamptz, leased_until = null,
        delivered_at = null, last_duration_ms = null, last_excerpt = null
      from o where d.id = o.id
      returning d.id
    )
    select count(*)::int as replayed from r`.execute(db)
  return rows[0]?.replayed ?? 0
}

export async function replayDelivery(ctx: Ctx, scope: EndpointScope, publicId: string, deliveryId: number): Promise<ReplayResult> {
  const endpointId = await endpointRowId(ctx.db, scope, publicId)
  if (endpointId === null) return { ok: false, code: 'webhook_not_found' }
  const replayed = await requeue(ctx.db, endpointId, new Date(ctx.now()), sql<boolean>`id = ${deliveryId}`)
  return replayed === 0 ? { ok: false, code: 'delivery_not_found' } : { ok: true, replayed }
}

/** Every dead delivery made in [since, until) (the delivered ones too with `delivered`) queued again. */
export async function replayRange(ctx: Ctx, scope: EndpointScope, publicId: string, range: { since: Date; until: Date | null; delivered: boolean }): Promise<ReplayResult> {
  const endpointId = await endpointRowId(ctx.db, scope, publicId)
  if (endpointId === null) return { ok: false, code: 'webhook_not_found' }
  const statuses = range.delivered ? ['dead', 'delivered'] : ['dead']
  const until = range.until ? sql<boolean>`created_at < ${range.until.toISOString()}::timestamptz` : sql<boolean>`true`
  const which = sql<boolean>`created_at >= ${range.since.toISOString()}::timestamptz and ${until} and status in (${sql.join(statuses)})`
  return { ok: true, replayed: await requeue(ctx.db, endpointId, new Date(ctx.now()), which) }
}

/** What the queue gauges show (lib/metrics.ts): deliveries waiting for enabled endpoints, and the oldest one's age. */
export async function webhookQueueStats(db: Kysely<Database>, nowMs: number): Promise<{ pending: number; oldestPendingSeconds: number }> {
  const { rows } = await sql<{ pending: number; oldest: Date | null }>`
    select count(*)::int as pending, min(d.created_at) as oldest
    from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
    where d.status = 'pending' and e.enabled`.execute(db)
  const row = rows[0]
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : null
  return { pending: row?.pending ?? 0, oldestPendingSeconds: oldest === null ? 0 : Math.max(0, (nowMs - oldest) / 1000) }
}
