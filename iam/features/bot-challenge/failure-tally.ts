/**
 * Refused bot checks counted per hour and reason for the admin console (GET /admin/stats/signups,
 * features/admin/signup-stats.ts), in `bot_check_failures` (migration 0024).
 *
 * Cheap on purpose, since refusals are what a flood is made of: the refused request only adds one
 * to a counter in this process's memory; after its response, one statement adds every count
 * gathered meanwhile to its hour's row (an upsert per hour and reason). While that statement runs,
 * new refusals gather for the next one, so a flood costs each instance one statement in flight at
 * a time, never one per refusal, and the refused answer never waits for the database. The price:
 * the counts of the last moment before a crash are lost, which a statistic can afford.
 *
 * `unavailable` (the Turnstile-style provider could not be asked, turnstile.ts) is our outage, not a
 * client's failure: it is not counted here.
 */
import { sql, type Kysely } from 'kysely'
import type { IamContext } from '../../context'
import type { Database } from '../../db/schema'
import { runAfterResponse } from '../../lib/background'
import type { BotProofFailure } from './bot-proof'

export type CountedBotFailure = Exclude<BotProofFailure, 'unavailable'>
export const COUNTED_BOT_FAILURES: readonly CountedBotFailure[] = ['missing', 'invalid', 'expired', 'replayed']

export const HOUR_MS = 3_600_000
/** The start of the UTC hour `ms` falls in. */
export const hourStartMs = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS

interface Tally {
  /** `${hourStartMs}/${reason}` -> refusals not written yet */
  pending: Map<string, { hourMs: number; reason: CountedBotFailure; count: number }>
  writing: boolean
}

// one tally per database (an IAM process has one; a test may build several contexts)
const tallies = new WeakMap<Kysely<Database>, Tally>()

/** Counts one refused check at `ctx.now()`; written after the response (see above). */
export function countBotCheckFailure(ctx: Pick<IamContext, 'db' | 'now' | 'log'>, reason: BotProofFailure): void {
  if (reason === 'unavailable') return
  let tally = tallies.get(ctx.db)
  if (!tally) tallies.set(ctx.db, (tally = { pending: new Map(), writing: false }))
  const hourMs = hourStartMs(ctx.now())
  const key = `${hourMs}/${reason}`
  const entry = tally.pending.get(key)
  if (entry) entry.count++
  else tally.pending.set(key, { hourMs, reason, count: 1 })
  if (tally.writing) return
  tally.writing = true
  const written = tally
  runAfterResponse(
    () => writePending(ctx.db, written),
    (error) => ctx.log.error('bot check failures not counted', { error: error.message }),
  )
}

async function writePending(db: Kysely<Database>, tally: Tally): Promise<void> {
  try {
    while (tally.pending.size) {
      const batch = [...tally.pending.values()]
      tally.pending.clear()
      await db
        .insertInto('bot_check_failures')
        .values(batch.map((e) => ({ hour: new Date(e.hourMs), reason: e.reason, failures: e.count })))
        .onConflict((conflict) => conflict.columns(['hour', 'reason']).doUpdateSet({ failures: sql<number>`bot_check_failures.failures + excluded.failures` }))
        .execute()
    }
  } finally {
    tally.writing = false
  }
}
