/**
 * Redis Cluster accepts a script or a multi-key command only when all its keys map to one hash
 * slot. Every store operation that names several keys is listed here and run against a recording
 * stand-in for a Cluster client; each call it makes must name keys of one slot, judged by ioredis's
 * own slot function (cluster-key-slot), not by the store's (lib/storage/hash-slot.ts).
 */
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import type { IamContext } from '../../iam/context'
import { createRateLimiter } from '../../iam/features/rate-limits/limiter'
import { createProgressiveDelay } from '../../iam/features/rate-limits/progressive-delay'
import { admitLoginAttempt, forgiveLoginAttempts, refundLoginIpPoints } from '../../iam/features/users/login-delay'
import { parseConfig } from '../../iam/lib/config'
import type { SharedStore } from '../../iam/lib/storage'
import { redisAtomicOps, type RedisClient } from '../../iam/lib/storage/atomic-redis'
import { groupBySlot, hashSlot, sameSlot } from '../../iam/lib/storage/hash-slot'

const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number

type Call = { command: string; keys: string[] }

/**
 * A client that records each command's keys. Every script answers [1, 0, 0], which each caller
 * reads as "allowed / nothing alive / no mark" (only the keys are under test here).
 */
function recordingClient(isCluster: boolean): { client: RedisClient; calls: Call[] } {
  const calls: Call[] = []
  const script = async (_script: string, count: number, ...rest: Array<string | number>) => {
    calls.push({ command: 'script', keys: rest.slice(0, count).map(String) })
    return [1, 0, 0]
  }
  const client = {
    isCluster,
    evalsha: script,
    eval: script,
    del: async (...keys: string[]) => {
      calls.push({ command: 'del', keys })
      return keys.length
    },
  }
  return { client: client as unknown as RedisClient, calls }
}

function recordingContext(isCluster: boolean) {
  const { client, calls } = recordingClient(isCluster)
  const store = { fullKey: (key: string) => `iam:v2:${key}`, atomic: redisAtomicOps(client), now: () => 1_000 } as unknown as SharedStore
  const ctx = { store, config: parseConfig({}), now: () => 1_000 } as unknown as IamContext
  return { store, ctx, calls }
}

const PARTS = [
  { points: 5, duration: 60, blockDuration: 60 },
  { points: 50, duration: 3600, blockDuration: 0 },
]
const SPEC = { freeAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000, windowMs: 900_000 }
const CALLERS = ['198.51.100.7', '2001:db8::1', 'user_42', 'address_x', '']

/** Every store operation that names more than one key, as the features make it. */
const MULTI_KEY_OPERATIONS: Array<[string, (setup: ReturnType<typeof recordingContext>) => Promise<unknown>]> = [
  ['limiter consume (windows, blocks, rejections, permanent block)', ({ store }) => Promise.all(CALLERS.map((k) => createRateLimiter(store, 'login', PARTS, { permanentAfter: 2 }).consume(k)))],
  ['limiter isBlocked', ({ store }) => Promise.all(CALLERS.map((k) => createRateLimiter(store, 'login', PARTS).isBlocked(k)))],
  ['limiter inspect of several callers', ({ store }) => createRateLimiter(store, 'apiTokens', PARTS).inspect(CALLERS)],
  ['limiter reset with unblock', ({ store }) => createRateLimiter(store, 'login', PARTS).reset('198.51.100.7', { unblock: true })],
  ['limiter resetAll of several callers', ({ store }) => createRateLimiter(store, 'apiTokens', PARTS).resetAll(CALLERS)],
  ['progressive delay attempt', ({ store }) => createProgressiveDelay(store, 'loginAccount', SPEC).attempt('a@example.com')],
  ['progressive delay forgive', ({ store }) => createProgressiveDelay(store, 'loginAccount', SPEC).forgive('a@example.com')],
  ['progressive delay attempt by mark', ({ store }) =>
    createProgressiveDelay(store, 'loginAccount', SPEC).attemptByMark(store.fullKey('login-device:x'), { marked: 'a@example.com\n7', unmarked: 'a@example.com' })],
  ['login admission (IP budget, IP + address limiter, delay by device mark)', ({ ctx }) =>
    admitLoginAttempt(ctx, { email: 'a@example.com', visitorRowId: 7, ipAddress: '198.51.100.7' })],
  ['login forgiveness (delays, IP + address limiter, IP refund)', ({ ctx }) =>
    forgiveLoginAttempts(ctx, { email: 'a@example.com', visitorRowId: 7, ipAddress: '198.51.100.7', ipPointsSpent: 2, deviceMarkedAt: 1_000 })],
  ['login IP refund', ({ ctx }) => refundLoginIpPoints(ctx, '198.51.100.7', 1)],
]

describe('hashSlot', () => {
  it('maps keys to the slots ioredis computes, hash tags included', () => {
    const keys = ['', 'a', 'iam:v2:rl:login:{abc}:w0', '{}x', '{a}{b}', 'x{', 'x}{', 'ü{ß}', '{\u{1F600}}', 'iam:v2:login-device:Zm9v']
    for (let i = 0; i < 500; i++) keys.push(`iam:v2:k${i}:${(i * 7919).toString(36)}`)
    expect(keys.map(hashSlot)).toEqual(keys.map(calculateSlot))
  })

  it('hashes the whole key when the first braces are empty, even with a later tag (as Redis does)', () => {
    // CLUSTER KEYSLOT x{}y{z} answers 15453 on Redis 7.0; cluster-key-slot 1.1.1 answers the slot
    // of "z" here (ioredis then follows Redis's MOVED). Store keys never hold braces but their tag.
    expect(hashSlot('x{}y{z}')).toBe(15453)
    expect(hashSlot('x{}y{z}')).not.toBe(hashSlot('z'))
  })

  it('groups indexes by slot in first-seen order', () => {
    const keys = ['{a}1', '{b}1', '{a}2', '{b}2', '{c}']
    expect(groupBySlot(keys)).toEqual([[0, 2], [1, 3], [4]])
  })
})

describe.each(MULTI_KEY_OPERATIONS)('on a Cluster: %s', (_name, run) => {
  it('sends only commands whose keys share one hash slot', async () => {
    const setup = recordingContext(true)
    await run(setup)
    expect(setup.calls.length).toBeGreaterThan(0)
    const crossSlot = setup.calls.filter((call) => new Set(call.keys.map(calculateSlot)).size > 1)
    expect(crossSlot).toEqual([])
  })
})

describe('on one server (alone or under Sentinel)', () => {
  it('keeps the login admission one script over keys of several slots (one round trip)', async () => {
    const { ctx, calls } = recordingContext(false)
    await admitLoginAttempt(ctx, { email: 'a@example.com', visitorRowId: 7, ipAddress: '198.51.100.7' })
    expect(calls).toHaveLength(1)
    // the reason a Cluster needs the split at all: these keys span several slots
    expect(sameSlot(calls[0]!.keys)).toBe(false)
  })

  it('keeps the login forgiveness one script', async () => {
    const { ctx, calls } = recordingContext(false)
    await forgiveLoginAttempts(ctx, { email: 'a@example.com', visitorRowId: 7, ipAddress: '198.51.100.7', deviceMarkedAt: 1_000 })
    expect(calls).toHaveLength(1)
  })
})
