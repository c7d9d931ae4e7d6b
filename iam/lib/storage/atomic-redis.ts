/**
 * The atomic operations as Lua scripts on the ioredis client of unstorage's Redis driver
 * (`driver.getInstance()`). A script runs atomically in Redis, so concurrent calls from any number
 * of IAM instances are serialised by Redis itself. Every script gets the IAM's clock as ARGV[1] and
 * reads and writes the clocked form (clocked.ts), so every instance, and the test build's movable
 * clock, judge windows, blocks and nonces alike; the EX/PX expiries only clean up.
 */
import { createHash } from 'node:crypto'
import type Redis from 'ioredis'
import { MAX_DOUBLINGS, type AtomicOps, type DelayDecision, type ProgressiveDelaySpec } from './atomic'
import { checkTtl } from './clocked'

/**
 * A Lua script run by EVALSHA, falling back to EVAL (which caches it) when the server does not know
 * it yet (first use, or after SCRIPT FLUSH / a failover). Returns the script's raw reply.
 */
export function defineRedisScript(lua: string): (redis: Redis, keys: string[], args: Array<string | number>) => Promise<unknown> {
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

// The rate limiter's consume (same decision as atomic-memory.ts consumeLimit).
// KEYS: 1 permanent, 2 rejections, then per part i: window, block.
// ARGV: 1 now, 2 permanentAfter (0 = never), 3 rejections TTL ms, 4 permanent TTL ms,
//       then per part i: points, duration ms, block ms.
// Reply: { allowed 0|1, retry ms, permanent 0|1 }.
const consumeScript = defineRedisScript(`${CLOCKED_LUA}
local _, permanentExp = live(KEYS[1])
if permanentExp then return {0, math.max(1, permanentExp - now), 1} end
local parts = (#KEYS - 2) / 2
local rejected = false
local retry = 0
for i = 1, parts do
  local window, block = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local points, blockMs = tonumber(ARGV[2 + 3 * i]), tonumber(ARGV[4 + 3 * i])
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
  for i = 1, parts do
    local window = KEYS[1 + 2 * i]
    -- a fixed window: the expiry is set when the window opens and never extended
    local count, windowExp = live(window)
    if count then put(window, string.format('%d', tonumber(count) + 1), windowExp)
    else put(window, '1', now + tonumber(ARGV[3 + 3 * i])) end
  end
  redis.call('DEL', KEYS[2])
  return {1, 0, 0}
end
local permanentAfter = tonumber(ARGV[2])
if permanentAfter > 0 then
  local rejections = tonumber(live(KEYS[2]) or '0') + 1
  if rejections >= permanentAfter then
    put(KEYS[1], '1', now + tonumber(ARGV[4]))
    redis.call('DEL', KEYS[2])
  else
    put(KEYS[2], string.format('%d', rejections), now + tonumber(ARGV[3]))
  end
end
return {0, math.max(1, retry), 0}`)

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
// a count key and a gate key. ARGV: 1 now, 2 windowMs, 3 freeAttempts, 4 baseDelayMs, 5 maxDelayMs,
// 6 max doublings. Answers 0 = admitted, else the ms to wait.
const ATTEMPT_LUA = `
local function attempt(countKey, gateKey)
  local _, gateExp = live(gateKey)
  if gateExp then return gateExp - now end
  local n = tonumber(live(countKey) or '0') + 1
  put(countKey, string.format('%d', n), now + tonumber(ARGV[2]))
  local free = tonumber(ARGV[3])
  if n >= free then
    local delay = math.min(tonumber(ARGV[4]) * 2 ^ math.min(n - free, tonumber(ARGV[6])), tonumber(ARGV[5]))
    put(gateKey, '1', now + math.floor(delay))
  end
  return 0
end
`

// KEYS: 1 count, 2 gate. Reply: 0 = admitted, else the ms to wait.
const attemptScript = defineRedisScript(`${CLOCKED_LUA}${ATTEMPT_LUA}
return attempt(KEYS[1], KEYS[2])`)

// The attempt on the marked subject while the mark lives, else on the unmarked one (one step: the
// mark cannot change between its read and the attempt). KEYS: 1 mark, 2-3 marked count and gate,
// 4-5 unmarked count and gate. Reply: { wait (0 = admitted), the mark's JSON or nil }.
const attemptByMarkScript = defineRedisScript(`${CLOCKED_LUA}${ATTEMPT_LUA}
local mark = live(KEYS[1])
if mark then return {attempt(KEYS[2], KEYS[3]), mark} end
return {attempt(KEYS[4], KEYS[5])}`)

const delayArgs = (spec: ProgressiveDelaySpec, now: number) => [now, spec.windowMs, spec.freeAttempts, spec.baseDelayMs, spec.maxDelayMs, MAX_DOUBLINGS]
const delayDecision = (wait: number): DelayDecision => (wait > 0 ? { ok: false, retryMs: wait } : { ok: true })

/** The atomic operations on `redis` (the Redis driver's instance). */
export function redisAtomicOps(redis: Redis): AtomicOps {
  return {
    setIfAbsent: async (key, json, ttlMs, now) => Number(await setIfAbsentScript(redis, [key], [now, checkTtl(ttlMs), json])) === 1,
    increment: async (key, ttlMs, by, now) => Number(await incrementScript(redis, [key], [now, checkTtl(ttlMs), Math.trunc(by)])),
    consumeLimit: async (keys, parts, policy, now) => {
      const scriptKeys = [keys.permanent, keys.rejections, ...parts.flatMap((_, i) => [keys.windows[i], keys.blocks[i]])]
      const args = [
        now,
        policy.permanentAfter,
        policy.rejectionsTtlMs,
        policy.permanentBlockMs,
        ...parts.flatMap((p) => [p.points, p.durationMs, p.blockMs]),
      ]
      const reply = await consumeScript(redis, scriptKeys, args)
      if (!Array.isArray(reply) || reply.length !== 3) throw new Error('unexpected reply from the rate limiter script')
      const [allowed, retryMs, permanent] = reply.map(Number)
      return allowed === 1 ? { ok: true } : { ok: false, retryMs, permanent: permanent === 1 }
    },
    anyAlive: async (keys, now) => Number(await anyAliveScript(redis, keys, [now])) === 1,
    aliveEach: async (keys, now) => {
      if (!keys.length) return []
      const reply = (await aliveEachScript(redis, keys, [now])) as unknown[]
      return reply.map((flag) => Number(flag) === 1)
    },
    attemptDelay: async (keys, spec, now) => delayDecision(Number(await attemptScript(redis, [keys.count, keys.gate], delayArgs(spec, now)))),
    attemptDelayByMark: async (mark, marked, unmarked, spec, now) => {
      const reply = await attemptByMarkScript(redis, [mark, marked.count, marked.gate, unmarked.count, unmarked.gate], delayArgs(spec, now))
      if (!Array.isArray(reply) || reply.length < 1) throw new Error('unexpected reply from the progressive delay script')
      return { decision: delayDecision(Number(reply[0])), mark: typeof reply[1] === 'string' ? reply[1] : null }
    },
    deleteAll: async (keys) => {
      if (keys.length) await redis.del(...keys)
    },
  }
}
