/**
 * Counted uses of a hot row without one UPDATE per use (see docs/performance.md): concurrent uses
 * of the same row under the same conditions share one `UPDATE ... usage_count + n` (lanes.ts: at
 * most one UPDATE per key in flight in this process; uses arriving meanwhile go together in the
 * next one). Each waiter gets its own count (the batch's returned count minus those after it), so
 * every answer carries a distinct number, the row's total stays exact across instances (the row
 * lock serialises the batches of every instance), and nothing is answered before its batch
 * committed.
 *
 * A lone use costs what it did before (one UPDATE); a burst of n on one row costs about two round
 * trips' wait instead of n queued row locks. The user: a counted API token verification
 * (features/api-tokens/verify.ts, with repository.ts's countUses). Held equal to one plain UPDATE
 * per use by tests/unit/count-batch-equivalence.test.ts.
 */
import { createLanes } from './lanes'

/**
 * `count(db, first, uses)` adds `uses` to the row `first` matches, under `first`'s conditions (its
 * time), and returns the row with its new total, or undefined when nothing matched; `key` names
 * the conditions under which uses may share a statement. Returns the function to call once per
 * use: its row, with the count of that use (the batch's uses were counted usage_count - n + 1 ..
 * usage_count, in arrival order).
 */
export function countBatches<Db extends object, C, R extends { usage_count: number }>(
  count: (db: Db, first: C, uses: number) => Promise<R | undefined>,
  key: (conditions: C) => string,
): (db: Db, conditions: C) => Promise<R | undefined> {
  const lanesByDb = new WeakMap<Db, (key: string, conditions: C) => Promise<R | undefined>>()
  const batchesOn = (db: Db) =>
    createLanes<C, R | undefined>(async (_key, batch) => {
      const row = await count(db, batch[0]!, batch.length)
      return batch.map((_, i) => row && { ...row, usage_count: row.usage_count - batch.length + 1 + i })
    })
  return (db, conditions) => {
    let lanes = lanesByDb.get(db)
    if (!lanes) lanesByDb.set(db, (lanes = batchesOn(db)))
    return lanes(key(conditions), conditions)
  }
}
