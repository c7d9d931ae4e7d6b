/**
 * Rate limiters over the shared store: fixed windows of `points` per `duration`, a block of
 * `blockDuration` when a window overflows, unions of several such parts, and an optional permanent
 * block after n consecutive rejections (spec "Limits", application rules 1-2; DESIGN section 4).
 *
 * Retry rule: a rejection answers a numeric retry unless the key was already permanently blocked
 * before the request. With `permanentAfter: 1` (union and consumption limiters) the 1st rejection is
 * numeric and creates the permanent block; with `permanentAfter: 2` (operation limiters) the 1st and
 * 2nd are numeric and the 2nd creates it. A success in between starts the count again.
 *
 * Atomic in Redis (one Lua script per consume, limiter-redis.ts) and in memory (synchronous under
 * the store's per-key lock, limiter-memory.ts). State model and key layout: limiter-state.ts.
 */
import type { SharedStore } from '../../lib/store'
import { consumeInMemory, isBlockedInMemory, resetInMemory } from './limiter-memory'
import { consumeInRedis, isBlockedInRedis, resetInRedis } from './limiter-redis'
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
} from './limiter-state'

export { PERMANENT_BLOCK_MS, type LimitDecision, type LimiterSpec } from './limiter-state'

export type RateLimiterOptions = {
  /** the n-th consecutive rejection creates a permanent block (absent = never) */
  permanentAfter?: number
  /** life of a "permanent" block in ms; default PERMANENT_BLOCK_MS (365 days) */
  permanentBlockMs?: number
}

export interface RateLimiter {
  readonly name: string
  /** Spends one point on every part, or none when any part (or a permanent block) refuses. */
  consume(key: string): Promise<LimitDecision>
  /** Forgets windows, blocks and the rejection count of `key`; the permanent block only with `unblock`. */
  reset(key: string, opts?: { unblock?: boolean }): Promise<void>
  /** True while `key` is blocked, permanently or by any part. */
  isBlocked(key: string): Promise<boolean>
  /** The full store keys of `key` (for tests and operators). */
  keysOf(key: string): LimiterKeys
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
  // memory: one lock per limiter key, shared by consume and reset
  const lockKey = (keys: LimiterKeys) => keys.rejections

  if (store.redis) {
    const redis = store.redis
    return {
      name,
      keysOf,
      consume: (key) => consumeInRedis(redis, keysOf(key), partsMs, policy, store.now()),
      reset: (key, resetOpts) => resetInRedis(redis, keysOf(key), resetOpts?.unblock === true),
      isBlocked: (key) => isBlockedInRedis(redis, keysOf(key), store.now()),
    }
  }
  const map = store.memory
  if (!map) throw new Error(`store kind ${store.kind} offers neither Redis nor memory entries`)
  return {
    name,
    keysOf,
    consume: (key) => {
      const keys = keysOf(key)
      return store.withLock(lockKey(keys), () => consumeInMemory(map, keys, partsMs, policy))
    },
    reset: (key, resetOpts) => {
      const keys = keysOf(key)
      return store.withLock(lockKey(keys), () => resetInMemory(map, keys, resetOpts?.unblock === true))
    },
    isBlocked: async (key) => isBlockedInMemory(map, keysOf(key)),
  }
}

/** Spec rule 1: the number of seconds a numeric rejection answers (`retry` and `Retry-After`). */
export function retrySeconds(retryMs: number): number {
  return Math.max(1, Math.ceil(retryMs / 1000))
}
