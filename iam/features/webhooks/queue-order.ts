/**
 * One account's events reach an endpoint in the order they happened, as far as the schedule allows:
 * a delivery is sent only when no earlier one of the same account to the same endpoint is pending.
 *
 * The worker's claim (deliver.ts) reads due deliveries in order of their next attempt, so a
 * delivery that must wait behind another is kept out of that order altogether rather than looked at
 * and passed over by every claim: the outbox writes it with its next attempt at `infinity`
 * (outbox.ts) when one is pending before it, and the delivery before it, once settled (delivered or
 * dead), moves the next one up to now. A claim then reads about as many rows as it takes, however
 * long one account's queue grows (with every waiting row in the claim's order, one account's
 * thousand queued sign-ins made each claim read all of them, and the statement's cost grew with the
 * square of the queue).
 *
 * The claim still checks that what it takes is the first pending delivery of its account (two
 * changes committed at the same moment can both see no pending delivery and queue two at once; the
 * check keeps them in order). The other way round, a delivery queued just as the one before it is
 * settled can find it still pending and wait, while the settling statement, which did not see it
 * yet, moved up nothing: `moveUpStranded` finds such a delivery (waiting, and first of its account)
 * and moves it up; the worker runs it every few seconds (plugins/03.webhooks.ts), so the race costs
 * a delay, never a delivery.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'

type Db = Kysely<Database> | Transaction<Database>

/** How often a worker looks for stranded deliveries. */
export const STRANDED_SWEEP_MS = 5_000

/** Whether a pending delivery waits behind an earlier one (its next attempt is `infinity`): the drivers read it as Infinity or an invalid date. */
export const waitsBehindEarlier = (nextAttemptAt: Date | number): boolean => !Number.isFinite(+nextAttemptAt)

/** After a delivery was settled in this transaction: the next one of its account to its endpoint is due now. */
export async function moveUpNext(db: Db, settled: { endpointId: number; accountKey: string | null }, now: Date): Promise<void> {
  if (settled.accountKey === null) return
  await sql`
    update webhook_deliveries set next_attempt_at = ${now.toISOString()}::timestamptz
    where id = (select min(o.id) from webhook_deliveries o
                where o.endpoint_id = ${settled.endpointId}::int and o.account_key = ${settled.accountKey}::text and o.status = 'pending')
      and next_attempt_at = 'infinity'`.execute(db)
}

/** Waiting deliveries that are first of their account (the race above): due now. How many. */
export async function moveUpStranded(db: Db, now: Date): Promise<number> {
  const result = await sql`
    update webhook_deliveries d set next_attempt_at = ${now.toISOString()}::timestamptz
    where d.status = 'pending' and d.next_attempt_at = 'infinity'
      and d.id = (select min(o.id) from webhook_deliveries o
                  where o.endpoint_id = d.endpoint_id and o.account_key = d.account_key and o.status = 'pending')`.execute(db)
  return Number(result.numAffectedRows ?? 0n)
}
