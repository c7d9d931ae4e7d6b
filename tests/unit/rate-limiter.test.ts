import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRateLimiter, PERMANENT_BLOCK_MS, retrySeconds, type LimitDecision } from '../../iam/features/rate-limits/limiter'
import type { SharedStore } from '../../iam/lib/storage'
import { keysWithTtl, memoryStore, STORE_BACKENDS, useStores } from '../helpers/limiter-stores'


const allowedCount = (decisions: LimitDecision[]) => decisions.filter((d) => d.ok).length
const rejection = (d: LimitDecision) => {
  if (d.ok) throw new Error('expected a rejection')
  return d
}

// `noRedisServer` (the backends' `skip`): the Redis backend's cases are skipped without REDIS_URL (no Redis server; the PostgreSQL + Redis run sets it)
describe.each(STORE_BACKENDS)('rate limiter on $label', ({ make, skip: noRedisServer }) => {
  const newStore = useStores(make)

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('allows exactly 50 of 500 concurrent consumes against 50 points', async () => {
    const limiter = createRateLimiter(newStore(), 'exact', { points: 50, duration: 60, blockDuration: 0 })
    const decisions = await Promise.all(Array.from({ length: 500 }, () => limiter.consume('1.2.3.4')))
    expect(allowedCount(decisions)).toBe(50)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('answers exactly permanentAfter numeric rejections under concurrency, the rest permanent', async () => {
    const store = newStore()
    for (const permanentAfter of [1, 2]) {
      const limiter = createRateLimiter(store, `race${permanentAfter}`, { points: 50, duration: 60, blockDuration: 600 }, { permanentAfter })
      const decisions = await Promise.all(Array.from({ length: 500 }, () => limiter.consume('ip')))
      const rejected = decisions.filter((d) => !d.ok)
      expect(allowedCount(decisions)).toBe(50)
      expect(rejected.filter((d) => !d.permanent)).toHaveLength(permanentAfter)
      expect(rejected.filter((d) => d.permanent)).toHaveLength(450 - permanentAfter)
    }
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('gives refunded points back to the window (never below zero, its expiry kept) and deletes the other keys, in one step', async () => {
    const store = newStore()
    const limiter = createRateLimiter(store, 'refund', { points: 3, duration: 60, blockDuration: 600 })
    for (let i = 0; i < 3; i++) expect((await limiter.consume('ip')).ok).toBe(true)
    await store.set('other', 1, 60_000)
    const before = await keysWithTtl(store)
    await store.atomic.refundThenDelete([limiter.refundStep('ip', 2)], [store.fullKey('other')], store.now())
    expect(await store.get('other')).toBeNull()
    // the window's expiry is the one it opened with
    const window = limiter.keysOf('ip').windows[0]!
    const ttl = (keys: Array<{ key: string; ttlMs: number }>) => keys.find((k) => k.key === window)?.ttlMs ?? 0
    expect(ttl(await keysWithTtl(store))).toBeLessThanOrEqual(ttl(before))
    for (let i = 0; i < 2; i++) expect((await limiter.consume('ip')).ok).toBe(true)
    expect((await limiter.consume('ip')).ok).toBe(false)
    // a refund lifts no block, and a window never goes below zero
    await store.atomic.refundThenDelete([limiter.refundStep('ip', 10)], [], store.now())
    expect((await limiter.consume('ip')).ok).toBe(false)
    const fresh = createRateLimiter(store, 'refund-floor', { points: 2, duration: 60, blockDuration: 0 })
    await fresh.consume('ip')
    await store.atomic.refundThenDelete([fresh.refundStep('ip', 10)], [], store.now())
    expect([(await fresh.consume('ip')).ok, (await fresh.consume('ip')).ok, (await fresh.consume('ip')).ok]).toEqual([true, true, false])
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('allows min(points, n) of n concurrent consumes', async () => {
    const store = newStore()
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 80 }), async (points, n) => {
        const limiter = createRateLimiter(store, `prop${run++}`, { points, duration: 60, blockDuration: 5 })
        const decisions = await Promise.all(Array.from({ length: n }, () => limiter.consume('k')))
        expect(allowedCount(decisions)).toBe(Math.min(points, n))
      }),
      { numRuns: 40 },
    )
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('keeps keys apart: one key over its limit does not limit another', async () => {
    const limiter = createRateLimiter(newStore(), 'apart', { points: 1, duration: 60, blockDuration: 60 })
    expect((await limiter.consume('a')).ok).toBe(true)
    expect((await limiter.consume('a')).ok).toBe(false)
    expect((await limiter.consume('b')).ok).toBe(true)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('answers the full block as retry when a window overflows and blocks', async () => {
    const limiter = createRateLimiter(newStore(), 'block', { points: 2, duration: 60, blockDuration: 900 })
    await limiter.consume('ip')
    await limiter.consume('ip')
    expect(await limiter.consume('ip')).toEqual({ ok: false, retryMs: 900_000, permanent: false })
    expect(await limiter.isBlocked('ip')).toBe(true)
    const later = rejection(await limiter.consume('ip'))
    expect(later.permanent).toBe(false)
    expect(later.retryMs).toBeGreaterThan(0)
    expect(later.retryMs).toBeLessThanOrEqual(900_000)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('inspect tells blocked keys and keys holding state apart from untouched ones, in one call', async () => {
    const limiter = createRateLimiter(newStore(), 'inspect', [
      { points: 2, duration: 60, blockDuration: 600 },
      { points: 5, duration: 600, blockDuration: 0 },
    ])
    await limiter.consume('spent')
    for (let i = 0; i < 3; i++) await limiter.consume('blocked')
    expect(await limiter.inspect(['clean', 'other'])).toEqual({ blocked: false, dirty: [] })
    expect(await limiter.inspect(['clean', 'spent'])).toEqual({ blocked: false, dirty: ['spent'] })
    expect(await limiter.inspect(['blocked', 'clean', 'spent'])).toEqual({ blocked: true, dirty: ['blocked', 'spent'] })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('concurrent inspects of the same keys all get the answer, and one made after a block sees it while an earlier read is in flight', async () => {
    const limiter = createRateLimiter(newStore(), 'shared', { points: 1, duration: 60, blockDuration: 600 }, { permanentAfter: 1 })
    await limiter.consume('ip')
    const before = limiter.inspect(['ip', 'token'])
    // a batch starts within the turn of the event loop it was asked in
    await new Promise((resolve) => setImmediate(resolve))
    // sent after the first read started (memory: done; Redis: behind it on the one connection)
    const blocking = limiter.consume('ip')
    const after = Array.from({ length: 20 }, () => limiter.inspect(['ip', 'token']))
    expect(await before).toEqual({ blocked: false, dirty: ['ip'] })
    expect(rejection(await blocking).permanent).toBe(false)
    for (const inspection of await Promise.all(after)) expect(inspection).toEqual({ blocked: true, dirty: ['ip'] })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('resetAll forgets windows and blocks of every key given, but keeps a permanent block', async () => {
    const limiter = createRateLimiter(newStore(), 'resetall', { points: 1, duration: 60, blockDuration: 600 }, { permanentAfter: 2 })
    await limiter.consume('a')
    await limiter.consume('b')
    await limiter.consume('b')
    for (let i = 0; i < 3; i++) await limiter.consume('gone')
    expect(rejection(await limiter.consume('gone')).permanent).toBe(true)
    await limiter.resetAll(['a', 'b', 'gone'])
    expect(await limiter.inspect(['a', 'b'])).toEqual({ blocked: false, dirty: [] })
    expect((await limiter.consume('a')).ok).toBe(true)
    expect((await limiter.consume('b')).ok).toBe(true)
    expect(await limiter.isBlocked('gone')).toBe(true)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('answers the window remaining life as retry when the part has no block', async () => {
    const limiter = createRateLimiter(newStore(), 'noblock', { points: 1, duration: 30, blockDuration: 0 })
    await limiter.consume('ip')
    const rejected = rejection(await limiter.consume('ip'))
    expect(rejected.retryMs).toBeGreaterThan(0)
    expect(rejected.retryMs).toBeLessThanOrEqual(30_000)
    expect(await limiter.isBlocked('ip')).toBe(false)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('rejects a union when any part rejects and then spends no point on any part', async () => {
    const store = newStore()
    const union = createRateLimiter(store, 'union', [
      { points: 1, duration: 1, blockDuration: 900 },
      { points: 3, duration: 60, blockDuration: 3600 },
    ])
    expect((await union.consume('ip')).ok).toBe(true)
    expect(await union.consume('ip')).toEqual({ ok: false, retryMs: 900_000, permanent: false })
    const [burstWindow, slowWindow] = union.keysOf('ip').windows
    // the rejected request did not eat the slow part's budget
    expect(await countAt(store, slowWindow)).toBe(1)
    expect(await countAt(store, burstWindow)).toBe(1)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('answers the longest retry of the rejecting parts of a union', async () => {
    const union = createRateLimiter(newStore(), 'longest', [
      { points: 1, duration: 60, blockDuration: 900 },
      { points: 1, duration: 60, blockDuration: 3600 },
    ])
    await union.consume('ip')
    expect(await union.consume('ip')).toEqual({ ok: false, retryMs: 3_600_000, permanent: false })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('blocks permanently on the 1st rejection with permanentAfter 1: that one numeric, later ones permanent', async () => {
    const limiter = createRateLimiter(newStore(), 'union1', [{ points: 1, duration: 1, blockDuration: 900 }], { permanentAfter: 1 })
    expect((await limiter.consume('ip')).ok).toBe(true)
    expect(await limiter.consume('ip')).toEqual({ ok: false, retryMs: 900_000, permanent: false })
    const third = rejection(await limiter.consume('ip'))
    expect(third.permanent).toBe(true)
    expect(third.retryMs).toBeGreaterThan(PERMANENT_BLOCK_MS - 60_000)
    expect(rejection(await limiter.consume('ip')).permanent).toBe(true)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('blocks permanently on the 2nd consecutive rejection with permanentAfter 2: 1st and 2nd numeric', async () => {
    const limiter = createRateLimiter(newStore(), 'op2', { points: 5, duration: 600, blockDuration: 3600 }, { permanentAfter: 2 })
    for (let i = 0; i < 5; i++) expect((await limiter.consume('ip_7')).ok).toBe(true)
    expect(await limiter.consume('ip_7')).toEqual({ ok: false, retryMs: 3_600_000, permanent: false })
    const second = rejection(await limiter.consume('ip_7'))
    expect(second.permanent).toBe(false)
    expect(retrySeconds(second.retryMs)).toBeLessThanOrEqual(3600)
    expect(rejection(await limiter.consume('ip_7')).permanent).toBe(true)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('refuses a permanently blocked key before consuming anything', async () => {
    const store = newStore()
    const limiter = createRateLimiter(store, 'perm', { points: 1, duration: 60, blockDuration: 0 }, { permanentAfter: 1 })
    await limiter.consume('ip')
    await limiter.consume('ip')
    await limiter.reset('ip') // clears the window, keeps the permanent block
    expect(rejection(await limiter.consume('ip')).permanent).toBe(true)
    expect(await countAt(store, limiter.keysOf('ip').windows[0])).toBe(0)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('starts the consecutive count again after a success', async () => {
    const store = newStore()
    const limiter = createRateLimiter(store, 'streak', { points: 1, duration: 60, blockDuration: 0 }, { permanentAfter: 2 })
    await limiter.consume('ip')
    expect(rejection(await limiter.consume('ip')).permanent).toBe(false)
    // the window ends (as time would make it) and the next request succeeds
    await store.delete(relative(store, limiter.keysOf('ip').windows[0]))
    expect((await limiter.consume('ip')).ok).toBe(true)
    // one rejection after the success: numeric, and no permanent block yet
    expect(rejection(await limiter.consume('ip')).permanent).toBe(false)
    expect(await store.ttl(relative(store, limiter.keysOf('ip').permanent))).toBeNull()
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('reset clears counters, blocks and the rejection count but not a permanent block', async () => {
    const limiter = createRateLimiter(newStore(), 'reset', { points: 1, duration: 60, blockDuration: 600 }, { permanentAfter: 2 })
    await limiter.consume('ip')
    await limiter.consume('ip') // 1st rejection: temporary block
    await limiter.reset('ip')
    expect(await limiter.isBlocked('ip')).toBe(false)
    expect((await limiter.consume('ip')).ok).toBe(true)
    await limiter.consume('ip') // 1st rejection of a new streak
    await limiter.consume('ip') // 2nd: permanent
    await limiter.reset('ip')
    expect(await limiter.isBlocked('ip')).toBe(true)
    expect(rejection(await limiter.consume('ip')).permanent).toBe(true)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('reset with unblock lifts a permanent block', async () => {
    const limiter = createRateLimiter(newStore(), 'unblock', { points: 1, duration: 60, blockDuration: 60 }, { permanentAfter: 1 })
    await limiter.consume('ip')
    await limiter.consume('ip')
    expect(rejection(await limiter.consume('ip')).permanent).toBe(true)
    await limiter.reset('ip', { unblock: true })
    expect(await limiter.isBlocked('ip')).toBe(false)
    expect(await limiter.consume('ip')).toEqual({ ok: true })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('gives every key it writes a TTL no longer than its purpose needs', async () => {
    const store = newStore()
    const op = createRateLimiter(store, 'ttl-op', [{ points: 1, duration: 2, blockDuration: 30 }, { points: 5, duration: 600, blockDuration: 0 }], {
      permanentAfter: 2,
    })
    const perm = createRateLimiter(store, 'ttl-perm', { points: 1, duration: 60, blockDuration: 900 }, { permanentAfter: 1 })
    await op.consume('a')
    await op.consume('a') // window keys, block key, rejection counter
    await perm.consume('b')
    await perm.consume('b') // permanent key
    const keys = await keysWithTtl(store)
    const byKey = new Map(keys.map((k) => [k.key, k.ttlMs]))
    const a = op.keysOf('a')
    const b = perm.keysOf('b')
    const expected: Array<[string, number]> = [
      [a.windows[0], 2_000],
      [a.windows[1], 600_000],
      [a.blocks[0], 30_000],
      [a.rejections, 601_000],
      [b.windows[0], 60_000],
      [b.blocks[0], 900_000],
      [b.permanent, PERMANENT_BLOCK_MS],
    ]
    for (const [key, maxMs] of expected) {
      expect(byKey.get(key), key).toBeGreaterThan(0)
      expect(byKey.get(key), key).toBeLessThanOrEqual(maxMs)
    }
    // and nothing else without a finite TTL
    for (const { key, ttlMs } of keys) expect(Number.isFinite(ttlMs) && ttlMs > 0, key).toBe(true)
    expect(keys.length).toBe(expected.length)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('namespaces its keys as <prefix>:v2:rl:<name>:<hashed key> and never stores the raw key', async () => {
    const store = newStore()
    const limiter = createRateLimiter(store, 'api.consumption', { points: 1, duration: 60, blockDuration: 0 })
    const rawToken = 'api_secretPayload_abc123'
    await limiter.consume(rawToken)
    const keys = (await keysWithTtl(store)).map((k) => k.key)
    expect(keys).toHaveLength(1)
    expect(keys[0].startsWith(`${store.fullKey('')}rl:api.consumption:`)).toBe(true)
    expect(keys[0]).not.toContain(rawToken)
  })
})

describe('retrySeconds', () => {
  it('is ceil(ms / 1000), at least 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: PERMANENT_BLOCK_MS }), (ms) => {
        expect(retrySeconds(ms)).toBe(Math.ceil(ms / 1000))
      }),
    )
    expect(retrySeconds(1)).toBe(1)
    expect(retrySeconds(1000)).toBe(1)
    expect(retrySeconds(1001)).toBe(2)
    expect(retrySeconds(0)).toBe(1)
  })
})

describe('createRateLimiter', () => {
  it('refuses specs that cannot limit anything', () => {
    const { store } = memoryStore()
    expect(() => createRateLimiter(store, 'x', { points: 0, duration: 1, blockDuration: 0 })).toThrow(/points/)
    expect(() => createRateLimiter(store, 'x', { points: 1, duration: 0, blockDuration: 0 })).toThrow(/duration/)
    expect(() => createRateLimiter(store, 'x', { points: 1, duration: 1, blockDuration: -1 })).toThrow(/blockDuration/)
    expect(() => createRateLimiter(store, 'x', [])).toThrow(/at least one part/)
    expect(() => createRateLimiter(store, 'a:b', { points: 1, duration: 1, blockDuration: 0 })).toThrow(/name/)
  })
})

/** A full key without the store's prefix, as the store's own methods take it. */
const relative = (store: SharedStore, fullKey: string) => fullKey.slice(store.fullKey('').length)

/** The stored window count at a full key (0 when absent). */
async function countAt(store: SharedStore, fullKey: string): Promise<number> {
  return Number((await store.get<number>(relative(store, fullKey))) ?? 0)
}
