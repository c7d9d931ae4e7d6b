/**
 * The delivery log an administrator reads (each delivery with every attempt), manual replays, and
 * the queue figures of the metrics.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamContext } from '../../context'
import { endpointRowId } from './endpoints-repo'
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
export async function listDeliveries(ctx: Ctx, publicId: string, query: { status?: DeliveryStatus; limit: number }): Promise<DeliveryView[] | null> {
  const endpointId = await endpointRowId(ctx.db, publicId)
  if (endpointId === null) return null
  let select = ctx.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'msg_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'delivered_at', 'created_at', 'payload'])
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
    log: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({ at: a.attempted_at.toISOString(), status: a.status, durationMs: a.duration_ms, error: a.error, responseExcerpt: a.response_excerpt })),
  }))
}

export type ReplayResult = { ok: true; replayed: number } | { ok: false; code: 'webhook_not_found' | 'delivery_not_found' }

/** Queues deliveries again at once with their schedule started over (their `webhook-id` unchanged). */
const requeue = (db: Kysely<Database>, now: Date) =>
  db.updateTable('webhook_deliveries').set({ status: 'pending', attempts: 0, next_attempt_at: now, leased_until: null, delivered_at: null })

export async function replayDelivery(ctx: Ctx, publicId: string, deliveryId: number): Promise<ReplayResult> {
  const endpointId = await endpointRowId(ctx.db, publicId)
  if (endpointId === null) return { ok: false, code: 'webhook_not_found' }
  const result = await requeue(ctx.db, new Date(ctx.now())).where('id', '=', deliveryId).where('endpoint_id', '=', endpointId).executeTakeFirst()
  return result.numUpdatedRows === 0n ? { ok: false, code: 'delivery_not_found' } : { ok: true, replayed: 1 }
}

/** Every dead delivery made in [since, until) (the delivered ones too with `delivered`) queued again. */
export async function replayRange(ctx: Ctx, publicId: string, range: { since: Date; until: Date | null; delivered: boolean }): Promise<ReplayResult> {
  const endpointId = await endpointRowId(ctx.db, publicId)
  if (endpointId === null) return { ok: false, code: 'webhook_not_found' }
  let update = requeue(ctx.db, new Date(ctx.now()))
    .where('endpoint_id', '=', endpointId)
    .where('created_at', '>=', range.since)
    .where('status', 'in', range.delivered ? ['dead', 'delivered'] : ['dead'])
  if (range.until) update = update.where('created_at', '<', range.until)
  const result = await update.executeTakeFirst()
  return { ok: true, replayed: Number(result.numUpdatedRows) }
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
