/**
 * Rate limiters over the shared store: fixed windows of `points` per `duration`, a block of
 * `blockDuration` when a window overflows, unions of several such parts, and an optional permanent
 * block after n consecutive rejections (docs/configuration.md, rate limiters).
 *
 * Retry rule: a rejection answers a numeric retry unless the key was already permanently blocked
 * before the request. With `permanentAfter: 1` (union and consumption limiters) the 1st rejection is
 * numeric and creates the permanent block; with `permanentAfter: 2` (operation limiters) the 1st and
 * 2nd are numeric and the 2nd creates it. A success in between starts the count again.
 *
 * Atomic on every driver: one consume is one atomic operation of the storage layer (a Lua script on
 * Redis, one synchronous step on the memory driver's Map; lib/storage/atomic-*.ts). State model and
 * key layout: limiter-state.ts.
 */
import type { SharedStore } from '../../lib/storage'
import { createLanes } from '../../fast/lanes'
import { emitSignal } from '../../lib/signals'
import type { LimitRefund } from '../../lib/storage/atomic'
import {
  checkLimiterName,
  limiterKeys,
  PERMANENT_BLOCK_MS,
  rejectionsTtlMs,
  toPartsMs,
  type LimitDecision,
  type LimiterKeys,
  type LimiterPolicy,
  type LimiterSpec,
  type LimitStep,
} from './limiter-state'

export { PERMANENT_BLOCK_MS, type LimitDecision, type LimiterSpec, type LimitStep } from './limiter-state'

export type RateLimiterOptions = {
  /** the n-th consecutive rejection creates a permanent block (absent = never) */
  permanentAfter?: number
  /** life of a "permanent" block in ms; default PERMANENT_BLOCK_MS (365 days) */
  permanentBlockMs?: number
}

/** inspect's answer: whether any key is blocked, and which keys hold state a reset would clear. */
export type Inspection = { blocked: boolean; dirty: string[] }

export interface RateLimiter {
  readonly name: string
  /** Spends one point on every part, or none when any part (or a permanent block) refuses. */
  consume(key: string): Promise<LimitDecision>
  /** Forgets windows, blocks and the rejection count of `key`; the permanent block only with `unblock`. */
  reset(key: string, opts?: { unblock?: boolean }): Promise<void>
  /** The full store keys `reset` deletes (never the permanent block), for a caller that forgets several subjects in one store call. */
  resetKeys(key: string): string[]
  /** True while `key` is blocked, permanently or by any part. */
  isBlocked(key: string): Promise<boolean>
  /**
   * For several keys in one store round trip: whether any is blocked (as isBlocked), and which hold
   * any state a reset would clear (windows, blocks, rejections), so a caller that resets on
   * success can skip the reset when there is nothing to forget. Concurrent calls with the same keys
   * share one read, started after each of them was made.
   */
  inspect(keys: string[]): Promise<Inspection>
  /** reset() of several keys in one store round trip (never their permanent blocks). */
  resetAll(keys: string[]): Promise<void>
  /** The full store keys of `key` (for tests and operators). */
  keysOf(key: string): LimiterKeys
  /** consume()'s step for `key`, for a caller that runs several in one store call (atomic.ts consumeThenAttemptByMark). */
  step(key: string): LimitStep
  /** What consume() does with a decision once made (a refusal is counted in /metrics): for a step's decision. */
  settle(decision: LimitDecision): LimitDecision
  /** `points` to give back to `key`'s current windows, for atomic.ts refundThenDelete (a consume that turned out not to count). */
  refundStep(key: string, points: number): LimitRefund
}

/** Creates a limiter named `name` (namespaces its keys: `rl:<name>:...`); several parts = a union. */
export function createRateLimiter(
  store: SharedStore,
  name: string,
  parts: LimiterSpec | LimiterSpec[],
  opts: RateLimiterOptions = {},
): RateLimiter {
  checkLimiterName(name)
  const partsMs = toPartsMs(parts)
  const permanentAfter = opts.permanentAfter ?? 0
  if (!Number.isInteger(permanentAfter) || permanentAfter < 0) throw new Error(`permanentAfter must be a non-negative integer: ${permanentAfter}`)
  const policy: LimiterPolicy = {
    permanentAfter,
    permanentBlockMs: Math.round(opts.permanentBlockMs ?? PERMANENT_BLOCK_MS),
    rejectionsTtlMs: rejectionsTtlMs(partsMs),
  }
  if (!(policy.permanentBlockMs > 0)) throw new Error('permanentBlockMs must be > 0')
  const keysOf = (key: string) => limiterKeys(store.fullKey, name, key, partsMs.length)
  const signalRejection = (decision: LimitDecision): LimitDecision => {
    if (!decision.ok) emitSignal({ kind: 'limiterRejected', limiter: name })
    return decision
  }
  const { atomic } = store
  const readInspect = async (keys: string[]): Promise<Inspection> => {
    const each = keys.map(keysOf)
    // per key: its permanent block, then what a reset clears (whose first entries are the blocks)
    const alive = await atomic.aliveEach(each.flatMap((k) => [k.permanent, ...resettable(k)]), store.now())
    let blocked = false
    const dirty: string[] = []
    let at = 0
    each.forEach((k, i) => {
      const flags = alive.slice(at, (at += 1 + resettable(k).length))
      if (flags[0] || flags.slice(1, 1 + k.blocks.length).includes(true)) blocked = true
      if (flags.slice(1).includes(true)) dirty.push(keys[i]!)
    })
    return { blocked, dirty }
  }
  const sharedInspect = createLanes<string[], Inspection>(async (_key, batch) => {
    const inspection = await readInspect(batch[0]!)
    return batch.map(() => ({ blocked: inspection.blocked, dirty: [...inspection.dirty] }))
  })
  return {
    name,
    keysOf,
    resetKeys: (key) => resettable(keysOf(key)),
    consume: (key) => atomic.consumeLimit(keysOf(key), partsMs, policy, store.now()).then(signalRejection),
    step: (key) => ({ keys: keysOf(key), parts: partsMs, policy }),
    settle: signalRejection,
    refundStep: (key, points) => ({ windows: keysOf(key).windows, points }),
    reset: (key, resetOpts) => {
      const keys = keysOf(key)
      return atomic.deleteAll([...resettable(keys), ...(resetOpts?.unblock ? [keys.permanent] : [])])
    },
    resetAll: (keys) => atomic.deleteAll(keys.flatMap((key) => resettable(keysOf(key)))),
    // Concurrent inspects of the same keys (one hot token from one client) share the next read
    // (fast/lanes.ts): each read still starts after the request arrived, so it sees every block
    // made before that, on any instance; only the number of round trips changes.
    inspect: (keys) => sharedInspect(keys.join('\n'), keys),
    isBlocked: (key) => {
      const keys = keysOf(key)
      return atomic.anyAlive([keys.permanent, ...keys.blocks], store.now())
    },
  }
}

/** What reset() clears of a key, blocks first: everything but the permanent block. */
const resettable = (keys: LimiterKeys): string[] => [...keys.blocks, ...keys.windows, keys.rejections]

/** Spec rule 1: the number of seconds a numeric rejection answers (`retry` and `Retry-After`). */
export function retrySeconds(retryMs: number): number {
  return Math.max(1, Math.ceil(retryMs / 1000))
}
