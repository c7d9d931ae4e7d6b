/**
 * The atomic operations on the memory driver's own Map (`driver.getInstance()`): each runs
 * synchronously from its first read to its last write, with no await in between, so nothing else
 * in this process can interleave. Same decisions as the Redis scripts (atomic-redis.ts); values are
 * in the clocked form (clocked.ts) and judged by `now`.
 */
import { delayAfterMs, type AtomicOps, type DelayKeys, type LimitDecision, type LimiterKeys, type LimiterPolicy, type PartMs, type ProgressiveDelaySpec } from './atomic'
import { checkTtl, openClocked, sealClocked } from './clocked'

type Entries = Map<string, unknown>

/** Synchronous clocked reads and writes on one Map, at one instant `now`. */
function clockedView(map: Entries, now: number) {
  const live = (key: string) => openClocked(map.get(key), now)
  return {
    live,
    count: (key: string) => Number(live(key)?.json ?? 0),
    /** remaining life in ms, or null when absent or expired */
    ttl: (key: string) => {
      const entry = live(key)
      return entry ? entry.expiresAt - now : null
    },
    put: (key: string, json: string, expiresAt: number) => void map.set(key, sealClocked(json, expiresAt)),
    remove: (key: string) => void map.delete(key),
  }
}

function consumeLimit(map: Entries, keys: LimiterKeys, parts: PartMs[], policy: LimiterPolicy, now: number): LimitDecision {
  const view = clockedView(map, now)
  // A permanently blocked key is refused before anything is consumed or counted.
  const permanentTtl = view.ttl(keys.permanent)
  if (permanentTtl !== null) return { ok: false, retryMs: Math.max(1, permanentTtl), permanent: true }

  let rejected = false
  let retryMs = 0
  parts.forEach((part, i) => {
    const blockTtl = view.ttl(keys.blocks[i])
    if (blockTtl !== null) {
      rejected = true
      retryMs = Math.max(retryMs, blockTtl)
      return
    }
    if (view.count(keys.windows[i]) + 1 <= part.points) return
    rejected = true
    if (part.blockMs > 0) {
      view.put(keys.blocks[i], '1', now + part.blockMs)
      retryMs = Math.max(retryMs, part.blockMs)
    } else {
      retryMs = Math.max(retryMs, view.ttl(keys.windows[i]) ?? part.durationMs)
    }
  })

  if (!rejected) {
    parts.forEach((part, i) => {
      const window = view.live(keys.windows[i])
      // a fixed window: the expiry is set when the window opens and never extended
      if (window) view.put(keys.windows[i], String(Number(window.json) + 1), window.expiresAt)
      else view.put(keys.windows[i], '1', now + part.durationMs)
    })
    view.remove(keys.rejections)
    return { ok: true }
  }

  if (policy.permanentAfter > 0) {
    const rejections = view.count(keys.rejections) + 1
    if (rejections >= policy.permanentAfter) {
      view.put(keys.permanent, '1', now + policy.permanentBlockMs)
      view.remove(keys.rejections)
    } else {
      view.put(keys.rejections, String(rejections), now + policy.rejectionsTtlMs)
    }
  }
  return { ok: false, retryMs: Math.max(1, retryMs), permanent: false }
}

function attemptDelay(map: Entries, keys: DelayKeys, spec: ProgressiveDelaySpec, now: number) {
  const view = clockedView(map, now)
  const wait = view.ttl(keys.gate)
  if (wait !== null && wait > 0) return { ok: false as const, retryMs: wait }
  const admitted = view.count(keys.count) + 1
  view.put(keys.count, String(admitted), now + spec.windowMs)
  const delay = delayAfterMs(admitted, spec)
  if (delay > 0) view.put(keys.gate, '1', now + Math.floor(delay))
  return { ok: true as const }
}

function attemptDelayByMark(map: Entries, mark: string, marked: DelayKeys, unmarked: DelayKeys, spec: ProgressiveDelaySpec, now: number) {
  const json = openClocked(map.get(mark), now)?.json ?? null
  const keys = json === null ? unmarked : marked
  return { decision: attemptDelay(map, keys, spec, now), mark: json, attempts: clockedView(map, now).count(keys.count) }
}

/** The atomic operations on `map` (the memory driver's instance). */
export function memoryAtomicOps(map: Entries): AtomicOps {
  return {
    setIfAbsent: async (key, json, ttlMs, now) => {
      const life = checkTtl(ttlMs)
      const view = clockedView(map, now)
      if (view.live(key)) return false
      view.put(key, json, now + life)
      return true
    },
    increment: async (key, ttlMs, by, now) => {
      const life = checkTtl(ttlMs)
      const view = clockedView(map, now)
      const entry = view.live(key)
      const next = Number(entry?.json ?? 0) + Math.trunc(by)
      view.put(key, String(next), entry ? entry.expiresAt : now + life)
      return next
    },
    consumeLimit: async (keys, parts, policy, now) => consumeLimit(map, keys, parts, policy, now),
    anyAlive: async (keys, now) => keys.some((key) => openClocked(map.get(key), now) !== null),
    aliveEach: async (keys, now) => keys.map((key) => openClocked(map.get(key), now) !== null),
    attemptDelay: async (keys, spec, now) => attemptDelay(map, keys, spec, now),
    consumeThenAttemptByMark: async (limits, delay, now) => {
      const decisions: LimitDecision[] = []
      const used: number[] = []
      const view = clockedView(map, now)
      for (const step of limits) {
        const decision = consumeLimit(map, step.keys, step.parts, step.policy, now)
        decisions.push(decision)
        if (!decision.ok) return { limits: decisions, delay: null }
        used.push(Math.max(0, ...step.keys.windows.map((key) => view.count(key))))
      }
      const { attempts, ...decided } = attemptDelayByMark(map, delay.mark, delay.marked, delay.unmarked, delay.spec, now)
      return decided.decision.ok ? { limits: decisions, delay: decided, used: { limits: used, delay: attempts } } : { limits: decisions, delay: decided }
    },
    deleteAll: async (keys) => {
      for (const key of keys) map.delete(key)
    },
    refundThenDelete: async (refunds, keys, now) => {
      const view = clockedView(map, now)
      for (const { windows, points } of refunds) {
        for (const key of windows) {
          const window = view.live(key)
          if (window) view.put(key, String(Math.max(0, Number(window.json) - points)), window.expiresAt)
        }
      }
      for (const key of keys) map.delete(key)
    },
  }
}

/** Deletes the entries `now` judges expired (the memory driver keeps whatever it is given). */
export function sweepExpired(map: Entries, now: number): void {
  for (const [key, raw] of map) if (openClocked(raw, now) === null) map.delete(key)
}
