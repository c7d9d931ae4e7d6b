/**
 * Counted verification of a hot token without one UPDATE per request (see docs/performance.md): concurrent
 * verifications of the same token with the same conditions (privilege, client IP) share one
 * `UPDATE ... usage_count + n` (lib/lanes.ts: at most one UPDATE per token and conditions in flight
 * in this process; verifications arriving meanwhile go together in the next one). Each waiter gets
 * its own count (the batch's returned count minus those after it), so every answer carries a
 * distinct number, the row's total stays exact across instances (the row lock serialises the
 * batches of every instance), and nothing is answered before its batch committed.
 *
 * A lone verification costs what it did before (one UPDATE); a burst of n on one token costs about
 * two round trips' wait instead of n queued row locks.
 */
import type { Database } from '../../db/schema'
import type { Kysely, Transaction } from 'kysely'
import { createLanes } from '../../lib/lanes'
import { countUses, type UseConditions, type VerifiedRow } from './repository'

type Db = Kysely<Database> | Transaction<Database>
type CountLanes = (key: string, conditions: UseConditions) => Promise<VerifiedRow | undefined>

const lanesByDb = new WeakMap<Db, CountLanes>()

const laneKey = (c: UseConditions): string => `${c.hash}\n${c.privilege}\n${c.ip ?? ''}\n${c.bypassIp ? 1 : 0}`

/** One UPDATE for the batch, under the first verification's conditions (its time); the uses were counted usage_count - n + 1 .. usage_count, in arrival order. */
const countBatch = (db: Db) =>
  createLanes<UseConditions, VerifiedRow | undefined>(async (_key, batch) => {
    const row = await countUses(db, batch[0]!, batch.length)
    return batch.map((_, i) => row && { ...row, usage_count: row.usage_count - batch.length + 1 + i })
  })

/** Counts one verification of the token `conditions` match, batched with concurrent ones of the same token. */
export function countUseBatched(db: Db, conditions: UseConditions): Promise<VerifiedRow | undefined> {
  let lanes = lanesByDb.get(db)
  if (!lanes) lanesByDb.set(db, (lanes = countBatch(db)))
  return lanes(laneKey(conditions), conditions)
}
