/**
 * The Redis back end: one Lua script per consume covers every part of a union, the permanent block
 * and the consecutive-rejection counter, so concurrent consumes from any number of IAM instances
 * are serialised by Redis itself (a script runs atomically).
 *
 * Time: the IAM's clock (the store's `now`) is passed to the script, and every key holds its expiry
 * in its value (store.ts, CLOCKED_LUA), so every instance and the test build's movable clock judge
 * windows and blocks alike; PX expiries only clean up. `retryMs` is an expiry minus that now.
 */
import type Redis from 'ioredis'
import { CLOCKED_LUA, defineRedisScript } from '../../lib/store'
import type { LimitDecision, LimiterKeys, LimiterPolicy, PartMs } from './limiter-state'

// KEYS: 1 permanent, 2 rejections, then per part i: window, block.
// ARGV: 1 now, 2 permanentAfter (0 = never), 3 rejections TTL ms, 4 permanent TTL ms,
//       then per part i: points, duration ms, block ms.
// Reply: { allowed 0|1, retry ms, permanent 0|1 }. Same decision as limiter-memory.ts.
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

// KEYS: the permanent and block keys; ARGV: 1 now. Reply: 1 when any is alive by that clock.
const blockedScript = defineRedisScript(`${CLOCKED_LUA}
for i = 1, #KEYS do if live(KEYS[i]) then return 1 end end
return 0`)

export async function consumeInRedis(redis: Redis, keys: LimiterKeys, parts: PartMs[], policy: LimiterPolicy, now: number): Promise<LimitDecision> {
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
}

export async function isBlockedInRedis(redis: Redis, keys: LimiterKeys, now: number): Promise<boolean> {
  return Number(await blockedScript(redis, [keys.permanent, ...keys.blocks], [now])) === 1
}

export async function resetInRedis(redis: Redis, keys: LimiterKeys, unblock: boolean): Promise<void> {
  await redis.del(...keys.windows, ...keys.blocks, keys.rejections, ...(unblock ? [keys.permanent] : []))
}
