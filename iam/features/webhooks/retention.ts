/**
 * How long the delivery log keeps what is settled. The outbox row of a delivery stays after it was
 * delivered or given up (dead): it is the log the console and the API show, and what a replay
 * sends again. Without an end, every sign-in with ten endpoints subscribed would add ten rows for
 * ever. A settled delivery whose event is older than `webhooks.retentionMs` (30 days by default; 0
 * keeps every one) is deleted with its logged attempts by the worker's prune (plugins/03.webhooks.ts).
 *
 * Never a pending delivery, however old (its endpoint switched off, or waiting behind another of its
 * account): deleting it would lose an event that was never delivered. A delivery being replayed is
 * pending again, and so kept. The one exception is a pending delivery whose endpoint is gone
 * (pruneOrphanedDeliveries): there is nobody left to deliver it to.
 *
 * Rows go in batches, oldest first by id (the outbox writes ids in the order of its events), each a
 * statement of its own that takes its rows with `FOR UPDATE SKIP LOCKED`: instances pruning at once
 * do not wait on each other, and a row a replay holds is left for the next prune.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/schema'

/** How often a worker prunes the log. */
export const PRUNE_SWEEP_MS = 10 * 60_000
/** Deliveries one statement deletes. */
export const PRUNE_BATCH = 1_000
/** Statements one prune runs at most; what is left waits for the next (a first prune of a long log stays short). */
export const PRUNE_MAX_BATCHES = 50

/**
 * Deletes settled deliveries queued before `before`, with their logged attempts, in batches of
 * `batch` (at most `maxBatches` of them). How many deliveries were deleted.
 */
export function pruneSettledDeliveries(db: Kysely<Database>, before: Date, options: BatchOptions = {}): Promise<number> {
  return pruneInBatches(db, sql<boolean>`o.status <> 'pending' and o.created_at < ${before.toISOString()}::timestamptz`, options)
}

/**
 * Deletes pending deliveries whose endpoint is gone, with their logged attempts: a change that read
 * an endpoint just before its deletion committed can queue a delivery after the deletion removed the
 * endpoint's others (the outbox's INSERT ... SELECT takes no lock on the endpoint), and such a row
 * would wait for ever, never claimed, never shown, never old enough to prune as settled. Nothing
 * reads it: a delivery's every reader starts from its endpoint. How many.
 */
export function pruneOrphanedDeliveries(db: Kysely<Database>, options: BatchOptions = {}): Promise<number> {
  return pruneInBatches(db, sql<boolean>`o.status = 'pending' and not exists (select 1 from webhook_endpoints e where e.id = o.endpoint_id)`, options)
}

interface BatchOptions {
  batch?: number
  maxBatches?: number
}

/** The deliveries `which` picks (of `webhook_deliveries o`), oldest first, with their attempts, batch by batch. */
async function pruneInBatches(db: Kysely<Database>, which: RawBuilder<boolean>, options: BatchOptions): Promise<number> {
  const batch = options.batch ?? PRUNE_BATCH
  const maxBatches = options.maxBatches ?? PRUNE_MAX_BATCHES
  let pruned = 0
  for (let i = 0; i < maxBatches; i++) {
    const { rows } = await sql<{ pruned: number }>`
      with gone as (
        delete from webhook_deliveries d where d.id in (
          select o.id from webhook_deliveries o
          where ${which}
          order by o.id
          limit ${batch}::int
          for update skip locked)
        returning d.id
      ), attempts as (
        delete from webhook_attempts a where a.delivery_id in (select id from gone)
      )
      select count(*)::int as pruned from gone`.execute(db)
    const deleted = rows[0]?.pruned ?? 0
    pruned += deleted
    if (deleted < batch) break
  }
  return pruned
}
