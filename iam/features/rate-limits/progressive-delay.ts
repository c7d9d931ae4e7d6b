/**
 * A progressive delay per subject (the per-account login throttle, issue 11 item 4.5): the first
 * `freeAttempts` attempts in a window pass at once; after that each attempt must wait
 * `min(baseDelayMs * 2^k, maxDelayMs)` since the previous admitted one (k = 0, 1, 2 ...). It never
 * blocks for good: whoever comes after the delay is admitted, so the owner of an attacked account
 * can always sign in with the right password, at worst `maxDelayMs` late per attempt. Guesses spread
 * over any number of addresses share the subject's delay, which caps them at one per `maxDelayMs`.
 *
 * An attempt is counted when it is admitted, before the caller does the expensive work (Argon2),
 * not when it fails: counting on failure would let N parallel guesses all pass the check before
 * the first of them fails. A success calls `forgive`, which forgets the subject's count.
 *
 * State per subject (h = a hash of the subject: no email sits in storage in clear):
 *   pd:<name>:{h}:n     attempts admitted in the window; TTL windowMs, restarted by each admission
 *                       (the count is forgotten only after windowMs without an attempt)
 *   pd:<name>:{h}:gate  present while the next attempt must wait; its TTL is the wait
 * Redis: one Lua script per attempt (atomic across instances), judged by the IAM's clock passed in
 * (values carry their expiry, store.ts CLOCKED_LUA). Memory: synchronous under the store's lock.
 */
import { createHash } from 'node:crypto'
import { CLOCKED_LUA, defineRedisScript, type SharedStore, type TtlMap } from '../../lib/store'
import { checkLimiterName } from './limiter-state'

export type ProgressiveDelaySpec = { freeAttempts: number; baseDelayMs: number; maxDelayMs: number; windowMs: number }

/** `retryMs`: how long the refused caller must wait before its next attempt can be admitted. */
export type DelayDecision = { ok: true } | { ok: false; retryMs: number }

export interface ProgressiveDelay {
  /** Admits and counts one attempt for `subject`, or refuses it (nothing counted) while the delay runs. */
  attempt(subject: string): Promise<DelayDecision>
  /** Forgets `subject`'s attempts and delay (after a success). */
  forgive(subject: string): Promise<void>
}

/** 2^30 * baseDelayMs is far beyond any sane maxDelayMs; the cap keeps the power finite. */
const MAX_DOUBLINGS = 30

/**
 * The wait imposed after the `admitted`-th attempt of a window: none while attempts are free, then
 * baseDelayMs doubling per further attempt, capped at maxDelayMs.
 */
export function delayAfterMs(admitted: number, spec: ProgressiveDelaySpec): number {
  if (admitted < spec.freeAttempts) return 0
  const doublings = Math.min(admitted - spec.freeAttempts, MAX_DOUBLINGS)
  return Math.min(spec.baseDelayMs * 2 ** doublings, spec.maxDelayMs)
}

type Keys = { count: string; gate: string }

// KEYS: 1 count, 2 gate. ARGV: 1 now, 2 windowMs, 3 freeAttempts, 4 baseDelayMs, 5 maxDelayMs, 6 max doublings.
// Reply: 0 = admitted, else the ms to wait. Same decision as attemptInMemory and delayAfterMs.
const attemptScript = defineRedisScript(`${CLOCKED_LUA}
local _, gateExp = live(KEYS[2])
if gateExp then return gateExp - now end
local n = tonumber(live(KEYS[1]) or '0') + 1
put(KEYS[1], string.format('%d', n), now + tonumber(ARGV[2]))
local free = tonumber(ARGV[3])
if n >= free then
  local delay = math.min(tonumber(ARGV[4]) * 2 ^ math.min(n - free, tonumber(ARGV[6])), tonumber(ARGV[5]))
  put(KEYS[2], '1', now + math.floor(delay))
end
return 0`)

function attemptInMemory(map: TtlMap, keys: Keys, spec: ProgressiveDelaySpec): DelayDecision {
  const wait = map.ttl(keys.gate)
  if (wait !== null && wait > 0) return { ok: false, retryMs: wait }
  const admitted = Number(map.get(keys.count)?.value ?? 0) + 1
  map.set(keys.count, admitted, spec.windowMs)
  const delay = delayAfterMs(admitted, spec)
  if (delay > 0) map.set(keys.gate, 1, delay)
  return { ok: true }
}

function checkSpec(spec: ProgressiveDelaySpec): void {
  for (const [name, value] of Object.entries(spec)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`progressive delay ${name} must be a positive integer: ${value}`)
  }
}

/** A progressive delay named `name` (namespaces its keys) over the shared store. */
export function createProgressiveDelay(store: SharedStore, name: string, spec: ProgressiveDelaySpec): ProgressiveDelay {
  checkLimiterName(name)
  checkSpec(spec)
  const keysOf = (subject: string): Keys => {
    const digest = createHash('sha256').update(subject).digest('base64url').slice(0, 32)
    // {digest} is a Redis Cluster hash tag: both keys of one script land in the same slot.
    const at = (suffix: string) => store.fullKey(`pd:${name}:{${digest}}:${suffix}`)
    return { count: at('n'), gate: at('gate') }
  }

  if (store.redis) {
    const redis = store.redis
    return {
      attempt: async (subject) => {
        const keys = keysOf(subject)
        const args = [store.now(), spec.windowMs, spec.freeAttempts, spec.baseDelayMs, spec.maxDelayMs, MAX_DOUBLINGS]
        const wait = Number(await attemptScript(redis, [keys.count, keys.gate], args))
        return wait > 0 ? { ok: false, retryMs: wait } : { ok: true }
      },
      forgive: async (subject) => {
        const keys = keysOf(subject)
        await redis.del(keys.count, keys.gate)
      },
    }
  }
  const map = store.memory
  if (!map) throw new Error(`store kind ${store.kind} offers neither Redis nor memory entries`)
  return {
    attempt: (subject) => {
      const keys = keysOf(subject)
      return store.withLock(keys.count, () => attemptInMemory(map, keys, spec))
    },
    forgive: (subject) => {
      const keys = keysOf(subject)
      return store.withLock(keys.count, () => {
        map.delete(keys.count)
        map.delete(keys.gate)
      })
    },
  }
}
