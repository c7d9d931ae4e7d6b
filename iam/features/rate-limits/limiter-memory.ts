/**
 * The memory back end: the same decision as the Redis script (limiter-redis.ts), done
 * synchronously on the store's TtlMap. There is no await between reading and writing, so a consume
 * is atomic in this process without further locking; the caller still runs it under the store's
 * per-key lock to order it with anything else that locks the key. Time is the store's `now`.
 */
import type { TtlMap } from '../../lib/store'
import type { LimitDecision, LimiterKeys, LimiterPolicy, PartMs } from './limiter-state'

const countOf = (map: TtlMap, key: string): number => Number(map.get(key)?.value ?? 0)

export function consumeInMemory(map: TtlMap, keys: LimiterKeys, parts: PartMs[], policy: LimiterPolicy): LimitDecision {
  // A permanently blocked key is refused before anything is consumed or counted.
  const permanentTtl = map.ttl(keys.permanent)
  if (permanentTtl !== null) return { ok: false, retryMs: Math.max(1, permanentTtl), permanent: true }

  let rejected = false
  let retryMs = 0
  parts.forEach((part, i) => {
    const blockTtl = map.ttl(keys.blocks[i])
    if (blockTtl !== null) {
      rejected = true
      retryMs = Math.max(retryMs, blockTtl)
      return
    }
    if (countOf(map, keys.windows[i]) + 1 <= part.points) return
    rejected = true
    if (part.blockMs > 0) {
      map.set(keys.blocks[i], 1, part.blockMs)
      retryMs = Math.max(retryMs, part.blockMs)
    } else {
      retryMs = Math.max(retryMs, map.ttl(keys.windows[i]) ?? part.durationMs)
    }
  })

  if (!rejected) {
    parts.forEach((part, i) => {
      const entry = map.get(keys.windows[i])
      // the window keeps the TTL it was opened with: a fixed window, not a sliding one
      if (entry) entry.value = Number(entry.value) + 1
      else map.set(keys.windows[i], 1, part.durationMs)
    })
    map.delete(keys.rejections)
    return { ok: true }
  }

  if (policy.permanentAfter > 0) {
    const rejections = countOf(map, keys.rejections) + 1
    if (rejections >= policy.permanentAfter) {
      map.set(keys.permanent, 1, policy.permanentBlockMs)
      map.delete(keys.rejections)
    } else {
      map.set(keys.rejections, rejections, policy.rejectionsTtlMs)
    }
  }
  return { ok: false, retryMs: Math.max(1, retryMs), permanent: false }
}

export function isBlockedInMemory(map: TtlMap, keys: LimiterKeys): boolean {
  return [keys.permanent, ...keys.blocks].some((key) => map.get(key) !== undefined)
}

export function resetInMemory(map: TtlMap, keys: LimiterKeys, unblock: boolean): void {
  for (const key of [...keys.windows, ...keys.blocks, keys.rejections]) map.delete(key)
  if (unblock) map.delete(keys.permanent)
}
