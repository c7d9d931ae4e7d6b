/**
 * The atomic operations as Lua scripts on the ioredis client of unstorage's Redis driver
 * (`driver.getInstance()`). A script runs atomically in Redis, so concurrent calls from any number
 * of IAM instances are serialised by Redis itself. Every script gets the IAM's clock as ARGV[1] and
 * reads and writes the clocked form (clocked.ts), so every instance, and the test build's movable
 * clock, judge windows, blocks and nonces alike; the EX/PX expiries only clean up.
 */
import { createHash } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import { MAX_DOUBLINGS, type AtomicOps, type StepsAdmission, type DelayDecision, type DelayKeys, type LimitDecision, type LimitStep, type ProgressiveDelaySpec } from './atomic'
import { checkTtl } from './clocked'
import { groupBySlot, sameSlot } from './hash-slot'

/** The Redis driver's instance: one server (alone or found through Sentinel) or a Cluster. */
export type RedisClient = Redis | Cluster

/**
 * A Lua script run by EVALSHA, falling back to EVAL (which caches it) when the server does not know
 * it yet (first use, or after SCRIPT FLUSH / a failover). Returns the script's raw reply.
 */
export function defineRedisScript(lua: string): (redis: RedisClient, keys: string[], args: Array<string | number>) => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex')
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args)
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return redis.eval(lua, keys.length, ...keys, ...args)
    }
  }
}

/**
 * Lua prelude for clocked values: ARGV[1] is now (ms). `live` answers a value and its expiry, or nil
 * when absent or expired by that clock; `put` writes one with a PX of its remaining life (clean-up).
 */
const CLOCKED_LUA = `
local now = tonumber(ARGV[1])
local function live(key)
  local raw = redis.call('GET', key)
  if not raw then return nil end
  local at = string.find(raw, '@', 1, true)
  if not at then return nil end
  local exp = tonumber(string.sub(raw, 1, at - 1))
  if not exp or exp <= now then return nil end
  return string.sub(raw, at + 1), exp
end
local function put(key, value, exp)
  redis.call('SET', key, string.format('%d', exp) .. '@' .. value, 'PX', string.format('%d', math.max(1, exp - now)))
end
`

// KEYS[1] key; ARGV[1] now, ARGV[2] ttl ms, ARGV[3] JSON. Writes only when absent or expired.
const setIfAbsentScript = defineRedisScript(`${CLOCKED_LUA}
if live(KEYS[1]) then return 0 end
put(KEYS[1], ARGV[3], now + tonumber(ARGV[2]))
return 1`)

// KEYS[1] key; ARGV[1] now, ARGV[2] ttl ms, ARGV[3] by. The expiry is set when the counter is created and kept after.
const incrementScript = defineRedisScript(`${CLOCKED_LUA}
local value, exp = live(KEYS[1])
local n = tonumber(ARGV[3])
if value then n = n + tonumber(value) else exp = now + tonumber(ARGV[2]) end
put(KEYS[1], string.format('%d', n), exp)
return n`)

// The rate limiter's consume (same decision as atomic-memory.ts consumeLimit) of one limiter whose
// keys follow KEYS[kb] and whose arguments follow ARGV[ab + 1]:
// KEYS: kb+1 permanent, kb+2 rejections, then per part i: window kb+1+2i, block kb+2+2i.
// ARGV: ab+2 permanentAfter (0 = never), ab+3 rejections TTL ms, ab+4 permanent TTL ms,
//       then per part i: points ab+2+3i, duration ms ab+3+3i, block ms ab+4+3i.
// Answers { allowed 0|1, retry ms, permanent 0|1 }, and when allowed the highest window count after it.
const CONSUME_LUA = `
local function consume(kb, ab, parts)
  local _, permanentExp = live(KEYS[kb + 1])
  if permanentExp then return {0, math.max(1, permanentExp - now), 1} end
  local rejected = false
  local retry = 0
  for i = 1, parts do
    local window, block = KEYS[kb + 1 + 2 * i], KEYS[kb + 2 + 2 * i]
    local points, blockMs = tonumber(ARGV[ab + 2 + 3 * i]), tonumber(ARGV[ab + 4 + 3 * i])
    local _, blockExp = live(block)
    local count, windowExp = live(window)
    if blockExp then
      rejected = true
      retry = math.max(retry, blockExp - now)
    elseif tonumber(count or '0') + 1 > points then
      rejected = true
      if blockMs > 0 then
        put(block, '1', now + blockMs)
        retry = math.max(retry, blockMs)
      else
        retry = math.max(retry, windowExp - now)
      end
    end
  end
  if not rejected then
    local top = 0
    for i = 1, parts do
      local window = KEYS[kb + 1 + 2 * i]
      -- a fixed window: the expiry is set when the window opens and never extended
      local count, windowExp = live(window)
      local n = tonumber(count or '0') + 1
      if count then put(window, string.format('%d', n), windowExp)
      else put(window, '1', now + tonumber(ARGV[ab + 3 + 3 * i])) end
      top = math.max(top, n)
    end
    redis.call('DEL', KEYS[kb + 2])
    return {1, 0, 0, top}
  end
  local permanentAfter = tonumber(ARGV[ab + 2])
  if permanentAfter > 0 then
    local rejections = tonumber(live(KEYS[kb + 2]) or '0') + 1
    if rejections >= permanentAfter then
      put(KEYS[kb + 1], '1', now + tonumber(ARGV[ab + 4]))
      redis.call('DEL', KEYS[kb + 2])
    else
      put(KEYS[kb + 2], string.format('%d', rejections), now + tonumber(ARGV[ab + 3]))
    end
  end
  return {0, math.max(1, retry), 0}
end
`

// One limiter: KEYS and ARGV as CONSUME_LUA's with kb = ab = 0 (ARGV[1] now).
const consumeScript = defineRedisScript(`${CLOCKED_LUA}${CONSUME_LUA}
return consume(0, 0, (#KEYS - 2) / 2)`)

// KEYS[1] key; ARGV[1] now. Reply: the value's JSON while alive by that clock, else nil.
const liveValueScript = defineRedisScript(`${CLOCKED_LUA}
local value = live(KEYS[1])
return value`)

// KEYS: any; ARGV: 1 now. Reply: 1 when any is alive by that clock.
const anyAliveScript = defineRedisScript(`${CLOCKED_LUA}
for i = 1, #KEYS do if live(KEYS[i]) then return 1 end end
return 0`)

// KEYS: any; ARGV: 1 now. Reply: per key, 1 when alive by that clock, else 0.
const aliveEachScript = defineRedisScript(`${CLOCKED_LUA}
local alive = {}
for i = 1, #KEYS do if live(KEYS[i]) then alive[i] = 1 else alive[i] = 0 end end
return alive`)

// The progressive delay's attempt (same decision as atomic-memory.ts and atomic.ts delayAfterMs) on
// a count key and a gate key, its arguments following ARGV[ab + 1]: ab+2 windowMs, ab+3
// freeAttempts, ab+4 baseDelayMs, ab+5 maxDelayMs, ab+6 max doublings. Answers 0 = admitted, else
// the ms to wait.
const ATTEMPT_LUA = `
local function attempt(countKey, gateKey, ab)
  local _, gateExp = live(gateKey)
  if gateExp then return gateExp - now end
  local n = tonumber(live(countKey) or '0') + 1
  put(countKey, string.format('%d', n), now + tonumber(ARGV[ab + 2]))
  local free = tonumber(ARGV[ab + 3])
  if n >= free then
    local delay = math.min(tonumber(ARGV[ab + 4]) * 2 ^ math.min(n - free, tonumber(ARGV[ab + 6])), tonumber(ARGV[ab + 5]))
    put(gateKey, '1', now + math.floor(delay))
  end
  return 0
end
`

// KEYS: 1 count, 2 gate. ARGV: 1 now, then ATTEMPT_LUA's with ab = 0. Reply: { 0 = admitted, else
// the ms to wait; the attempts counted in the window }.
const attemptScript = defineRedisScript(`${CLOCKED_LUA}${ATTEMPT_LUA}
local wait = attempt(KEYS[1], KEYS[2], 0)
return {wait, tonumber(live(KEYS[1]) or '0')}`)

// Limiters in order, then the delay by mark (atomic.ts consumeThenAttemptByMark).
// KEYS: each limiter's keys as CONSUME_LUA's, one limiter after the other, then the mark, the marked
// count and gate, the unmarked count and gate.
// ARGV: 1 now, 2 the number of limiters L, 3..2+L each limiter's number of parts, then each
// limiter's arguments as CONSUME_LUA's, then the delay's as ATTEMPT_LUA's.
// Reply: { j, retry ms, permanent 0|1 } when limiter j refused (nothing after it ran), else
// { 0, wait (0 = admitted), the mark's JSON or nil, the delay's attempts in its window, then each
// limiter's highest window count }.
const consumeThenAttemptScript = defineRedisScript(`${CLOCKED_LUA}${CONSUME_LUA}${ATTEMPT_LUA}
local limiters = tonumber(ARGV[2])
local kb, ab = 0, limiters + 1
local reply = {0, 0, false, 0}
for j = 1, limiters do
  local parts = tonumber(ARGV[2 + j])
  local decision = consume(kb, ab, parts)
  if decision[1] == 0 then return {j, decision[2], decision[3]} end
  reply[4 + j] = decision[4]
  kb = kb + 2 + 2 * parts
  ab = ab + 3 + 3 * parts
end
local mark = live(KEYS[kb + 1])
local count, gate = KEYS[kb + 4], KEYS[kb + 5]
if mark then count, gate, reply[3] = KEYS[kb + 2], KEYS[kb + 3], mark end
reply[2] = attempt(count, gate, ab)
reply[4] = tonumber(live(count) or '0')
return reply`)

// KEYS: the refunded windows, then the keys to delete. ARGV: 1 now, 2 the number of windows W, then
// per window the points it gets back. Same outcome as atomic-memory.ts refundThenDelete.
const refundThenDeleteScript = defineRedisScript(`${CLOCKED_LUA}
local windows = tonumber(ARGV[2])
for i = 1, windows do
  local count, exp = live(KEYS[i])
  if count then put(KEYS[i], string.format('%d', math.max(0, tonumber(count) - tonumber(ARGV[2 + i]))), exp) end
end
for i = windows + 1, #KEYS do redis.call('DEL', KEYS[i]) end
return 0`)

const specArgs = (spec: ProgressiveDelaySpec) => [spec.windowMs, spec.freeAttempts, spec.baseDelayMs, spec.maxDelayMs, MAX_DOUBLINGS]
const delayArgs = (spec: ProgressiveDelaySpec, now: number) => [now, ...specArgs(spec)]
const limitKeys = (step: LimitStep) => [step.keys.permanent, step.keys.rejections, ...step.parts.flatMap((_, i) => [step.keys.windows[i]!, step.keys.blocks[i]!])]
const limitArgs = (step: LimitStep) => [
  step.policy.permanentAfter,
  step.policy.rejectionsTtlMs,
  step.policy.permanentBlockMs,
  ...step.parts.flatMap((p) => [p.points, p.durationMs, p.blockMs]),
]
const limitDecision = (allowed: number, retryMs: number, permanent: number): LimitDecision =>
  allowed === 1 ? { ok: true } : { ok: false, retryMs, permanent: permanent === 1 }
const delayDecision = (wait: number): DelayDecision => (wait > 0 ? { ok: false, retryMs: wait } : { ok: true })

/**
 * `items` split by the Cluster slot of `keyOf(item)`, in first-seen order: on a Cluster a script or
 * DEL is accepted only with keys of one slot (CROSSSLOT otherwise), so an operation over several
 * callers' keys (hash tags differ) becomes one call per slot. One group on a single server.
 */
function slotGroups<T>(redis: RedisClient, items: T[], keyOf: (item: T) => string): T[][] {
  if (!redis.isCluster) return [items]
  return groupBySlot(items.map(keyOf)).map((indexes) => indexes.map((i) => items[i]!))
}

/** The atomic operations on `redis` (the Redis driver's instance). */
export function redisAtomicOps(redis: RedisClient): AtomicOps {
  /** One limiter's consume, and when allowed the highest count of its windows after it. */
  const consumeCounted = async (step: LimitStep, now: number): Promise<{ decision: LimitDecision; used: number }> => {
    const reply = await consumeScript(redis, limitKeys(step), [now, ...limitArgs(step)])
    if (!Array.isArray(reply) || reply.length < 3) throw new Error('unexpected reply from the rate limiter script')
    const [allowed, retryMs, permanent, used] = reply.map(Number)
    return { decision: limitDecision(allowed!, retryMs!, permanent!), used: used ?? 0 }
  }
  const consumeLimit = async (step: LimitStep, now: number): Promise<LimitDecision> => (await consumeCounted(step, now)).decision
  /** The delay's attempt, and the attempts its subject has had in the window. */
  const attemptCounted = async (keys: DelayKeys, spec: ProgressiveDelaySpec, now: number) => {
    const reply = await attemptScript(redis, [keys.count, keys.gate], delayArgs(spec, now))
    if (!Array.isArray(reply) || reply.length < 2) throw new Error('unexpected reply from the progressive delay script')
    return { decision: delayDecision(Number(reply[0])), attempts: Number(reply[1]) }
  }
  const attemptDelay = async (keys: DelayKeys, spec: ProgressiveDelaySpec, now: number) => (await attemptCounted(keys, spec, now)).decision
  const aliveEach = async (keys: string[], now: number): Promise<boolean[]> => {
    const flags: boolean[] = []
    const indexes = keys.map((_, i) => i)
    await Promise.all(
      slotGroups(redis, indexes, (i) => keys[i]!).map(async (group) => {
        const reply = (await aliveEachScript(redis, group.map((i) => keys[i]!), [now])) as unknown[]
        group.forEach((i, at) => (flags[i] = Number(reply[at]) === 1))
      }),
    )
    return flags
  }
  return {
    setIfAbsent: async (key, json, ttlMs, now) => Number(await setIfAbsentScript(redis, [key], [now, checkTtl(ttlMs), json])) === 1,
    increment: async (key, ttlMs, by, now) => Number(await incrementScript(redis, [key], [now, checkTtl(ttlMs), Math.trunc(by)])),
    consumeLimit: (keys, parts, policy, now) => consumeLimit({ keys, parts, policy }, now),
    anyAlive: async (keys, now) => {
      const groups = slotGroups(redis, keys, (key) => key).filter((group) => group.length)
      const replies = await Promise.all(groups.map((group) => anyAliveScript(redis, group, [now])))
      return replies.some((reply) => Number(reply) === 1)
    },
    aliveEach: async (keys, now) => (keys.length ? aliveEach(keys, now) : []),
    attemptDelay,
    consumeThenAttemptByMark: async (limits, delay, now) => {
      const keys = [...limits.flatMap(limitKeys), delay.mark, delay.marked.count, delay.marked.gate, delay.unmarked.count, delay.unmarked.gate]
      if (redis.isCluster && !sameSlot(keys)) return consumeThenAttemptBySlot(limits, delay, now)
      const args = [now, limits.length, ...limits.map((step) => step.parts.length), ...limits.flatMap(limitArgs), ...specArgs(delay.spec)]
      const reply = await consumeThenAttemptScript(redis, keys, args)
      if (!Array.isArray(reply) || reply.length < 2) throw new Error('unexpected reply from the login admission script')
      const refusedBy = Number(reply[0])
      if (refusedBy > 0) {
        const allowed: LimitDecision[] = limits.slice(0, refusedBy - 1).map(() => ({ ok: true }))
        return { limits: [...allowed, limitDecision(0, Number(reply[1]), Number(reply[2]))], delay: null }
      }
      return admitted(limits.map(() => ({ ok: true })), reply, limits.map((_, j) => Number(reply[4 + j])))
    },
    deleteAll: async (keys) => {
      await Promise.all(slotGroups(redis, keys, (key) => key).map((group) => (group.length ? redis.del(...group) : undefined)))
    },
    refundThenDelete: async (refunds, keys, now) => {
      const windows = refunds.flatMap((refund) => refund.windows.map((key) => ({ key, points: Math.trunc(refund.points), deleted: false })))
      const all = [...windows, ...keys.map((key) => ({ key, points: 0, deleted: true }))]
      if (!all.length) return
      await Promise.all(
        slotGroups(redis, all, (item) => item.key).map((group) => {
          const refunded = group.filter((item) => !item.deleted)
          const deleted = group.filter((item) => item.deleted)
          return refundThenDeleteScript(redis, [...refunded.map((w) => w.key), ...deleted.map((d) => d.key)], [now, refunded.length, ...refunded.map((w) => w.points)])
        }),
      )
    },
  }

  /**
   * consumeThenAttemptByMark on a Cluster when its keys span several slots (each limiter's keys
   * share its caller's hash tag, the mark and the delay's subjects have their own): the same steps
   * in the same order, each one atomic on its own slot. What is given up is only that another
   * request may interleave between steps, as when the steps were separate calls: every limiter
   * still spends at most one point per attempt and no attempt passes without every limiter
   * allowing it. The mark is written only after a right password (features/users/login-delay.ts),
   * so reading it a moment before the attempt at worst picks the stricter, unmarked subject.
   */
  async function consumeThenAttemptBySlot(limits: LimitStep[], delay: Parameters<AtomicOps['consumeThenAttemptByMark']>[1], now: number): Promise<StepsAdmission> {
    const decisions: LimitDecision[] = []
    const used: number[] = []
    for (const step of limits) {
      const { decision, used: count } = await consumeCounted(step, now)
      decisions.push(decision)
      if (!decision.ok) return { limits: decisions, delay: null }
      used.push(count)
    }
    const delayKeys = [delay.mark, delay.marked.count, delay.marked.gate, delay.unmarked.count, delay.unmarked.gate]
    if (sameSlot(delayKeys)) {
      const reply = (await consumeThenAttemptScript(redis, delayKeys, [now, 0, ...specArgs(delay.spec)])) as unknown[]
      return admitted(decisions, reply, used)
    }
    const mark = await liveValueScript(redis, [delay.mark], [now])
    const { decision, attempts } = await attemptCounted(typeof mark === 'string' ? delay.marked : delay.unmarked, delay.spec, now)
    const decided = { decision, mark: typeof mark === 'string' ? mark : null }
    return decision.ok ? { limits: decisions, delay: decided, used: { limits: used, delay: attempts } } : { limits: decisions, delay: decided }
  }

  /** consumeThenAttemptScript's reply once every limiter allowed: the delay's decision, and what the attempt used when it was admitted. */
  function admitted(decisions: LimitDecision[], reply: unknown[], used: number[]): StepsAdmission {
    const decided = { decision: delayDecision(Number(reply[1])), mark: typeof reply[2] === 'string' ? reply[2] : null }
    return decided.decision.ok ? { limits: decisions, delay: decided, used: { limits: used, delay: Number(reply[3]) } } : { limits: decisions, delay: decided }
  }
}
