/**
 * Counted verification of a hot token without one UPDATE per request (issue 14): concurrent
 * verifications of the same token with the same conditions (privilege, client IP) share one
 * `UPDATE ... usage_count + n`. At most one UPDATE per token and conditions is in flight in this
 * process; verifications arriving meanwhile wait for it and go together in the next one. Each
 * waiter gets its own count (the batch's returned count minus those after it), so every answer
 * carries a distinct number, the row's total stays exact across instances (the row lock
 * serialises the batches of every instance), and nothing is answered before its batch committed.
 *
 * A lone verification costs what it did before (one UPDATE); a burst of n on one token costs about
 * two round trips' wait instead of n queued row locks.
 */
import type { Database } from '../../db/schema'
import type { Kysely, Transaction } from 'kysely'
import { countUses, type UseConditions, type VerifiedRow } from './repository'

type Db = Kysely<Database> | Transaction<Database>

interface Waiter {
  resolve(row: VerifiedRow | undefined): void
  reject(error: unknown): void
}

interface Lane {
  /** the UPDATE in flight, if any */
  busy: boolean
  /** waiters for the next UPDATE, with the conditions of the first of them (its time) */
  queued: Waiter[]
  conditions: UseConditions
}

const lanesByDb = new WeakMap<Db, Map<string, Lane>>()

const laneKey = (c: UseConditions): string => `${c.hash}\n${c.privilege}\n${c.ip ?? ''}\n${c.bypassIp ? 1 : 0}`

/** Counts one verification of the token `conditions` match, batched with concurrent ones of the same token. */
export function countUseBatched(db: Db, conditions: UseConditions): Promise<VerifiedRow | undefined> {
  let lanes = lanesByDb.get(db)
  if (!lanes) lanesByDb.set(db, (lanes = new Map()))
  const key = laneKey(conditions)
  let lane = lanes.get(key)
  if (!lane) {
    lane = { busy: false, queued: [], conditions }
    lanes.set(key, lane)
  }
  if (!lane.queued.length) lane.conditions = conditions
  const answer = new Promise<VerifiedRow | undefined>((resolve, reject) => lane.queued.push({ resolve, reject }))
  if (!lane.busy) void flush(db, lanes, key, lane)
  return answer
}

async function flush(db: Db, lanes: Map<string, Lane>, key: string, lane: Lane): Promise<void> {
  lane.busy = true
  while (lane.queued.length) {
    const batch = lane.queued
    lane.queued = []
    try {
      const row = await countUses(db, lane.conditions, batch.length)
      // the batch's uses were counted usage_count - n + 1 .. usage_count, in arrival order
      batch.forEach((waiter, i) => waiter.resolve(row && { ...row, usage_count: row.usage_count - batch.length + 1 + i }))
    } catch (error) {
      for (const waiter of batch) waiter.reject(error)
    }
  }
  lane.busy = false
  lanes.delete(key)
}
