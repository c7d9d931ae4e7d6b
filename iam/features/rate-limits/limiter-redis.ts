/**
 * The Redis back end: one Lua script per consume covers every part of a union, the permanent block
 * and the consecutive-rejection counter, so concurrent consumes from any number of IAM instances
 * are serialised by Redis itself (a script runs atomically).
 *
 * Time: no clock is read here. Windows and blocks are keys with PX expiries and `retryMs` is their
 * PTTL, so Redis's own clock decides for every instance and clock skew between instances cannot
 * widen a window. (Inside a script Redis 7 freezes its clock, so the PTTLs read are consistent.)
 */
import type Redis from 'ioredis'
import { defineRedisScript } from '../../lib/store'
import type { LimitDecision, LimiterKeys, LimiterPolicy, PartMs } from './limiter-state'

// KEYS: 1 permanent, 2 rejections, then per part i: window, block.
// ARGV: 1 permanentAfter (0 = never), 2 rejections TTL ms, 3 permanent TTL ms,
//       then per part i: points, duration ms, block ms.
// Reply: { allowed 0|1, retry ms, permanent 0|1 }. Same decision as limiter-memory.ts.
const consumeScript = defineRedisScript(`
local permanentTtl = redis.call('PTTL', KEYS[1])
if permanentTtl ~= -2 then return {0, math.max(1, permanentTtl), 1} end
local parts = (#KEYS - 2) / 2
local rejected = false
local retry = 0
for i = 1, parts do
  local window, block = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local points, blockMs = tonumber(ARGV[1 + 3 * i]), tonumber(ARGV[3 + 3 * i])
  local blockTtl = redis.call('PTTL', block)
  if blockTtl ~= -2 then
    rejected = true
    retry = math.max(retry, blockTtl)
  elseif tonumber(redis.call('GET', window) or '0') + 1 > points then
    rejected = true
    if blockMs > 0 then
      redis.call('SET', block, '1', 'PX', blockMs)
      retry = math.max(retry, blockMs)
    else
      retry = math.max(retry, redis.call('PTTL', window))
    end
  end
end
if not rejected then
  for i = 1, parts do
    local window = KEYS[1 + 2 * i]
    -- a fixed window: the TTL is set when the window opens and never extended
    if redis.call('INCR', window) == 1 then redis.call('PEXPIRE', window, ARGV[2 + 3 * i]) end
  end
  redis.call('DEL', KEYS[2])
  return {1, 0, 0}
end
local permanentAfter = tonumber(ARGV[1])
if permanentAfter > 0 then
  local rejections = redis.call('INCR', KEYS[2])
  if rejections >= permanentAfter then
    redis.call('SET', KEYS[1], '1', 'PX', ARGV[3])
    redis.call('DEL', KEYS[2])
  else
    redis.call('PEXPIRE', KEYS[2], ARGV[2])
  end
end
return {0, math.max(1, retry), 0}`)

export async function consumeInRedis(redis: Redis, keys: LimiterKeys, parts: PartMs[], policy: LimiterPolicy): Promise<LimitDecision> {
  const scriptKeys = [keys.permanent, keys.rejections, ...parts.flatMap((_, i) => [keys.windows[i], keys.blocks[i]])]
  const args = [
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

export async function isBlockedInRedis(redis: Redis, keys: LimiterKeys): Promise<boolean> {
  return (await redis.exists(keys.permanent, ...keys.blocks)) > 0
}

export async function resetInRedis(redis: Redis, keys: LimiterKeys, unblock: boolean): Promise<void> {
  await redis.del(...keys.windows, ...keys.blocks, keys.rejections, ...(unblock ? [keys.permanent] : []))
}
