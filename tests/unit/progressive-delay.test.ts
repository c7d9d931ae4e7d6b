import { describe, expect, it } from 'vitest'
import { createRateLimiter } from '../../iam/features/rate-limits/limiter'
import { createProgressiveDelay, delayAfterMs, type DelayDecision } from '../../iam/features/rate-limits/progressive-delay'
import { keysWithTtl, memoryStore, STORE_BACKENDS, useClockedStores, useStores } from '../helpers/limiter-stores'

const SPEC = { freeAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000, windowMs: 900_000 }
const admittedCount = (decisions: DelayDecision[]) => decisions.filter((d) => d.ok).length

describe('delayAfterMs', () => {
  it('imposes no wait while attempts are free, then base * 2^k capped at the maximum', () => {
    expect([1, 2, 3, 4].map((n) => delayAfterMs(n, SPEC))).toEqual([0, 0, 0, 0])
    expect([5, 6, 7, 8, 9, 10, 11, 12].map((n) => delayAfterMs(n, SPEC))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000,
    ])
  })
  it('stays finite and capped for any number of attempts', () => {
    expect(delayAfterMs(10_000, SPEC)).toBe(60_000)
    expect(delayAfterMs(Number.MAX_SAFE_INTEGER, { ...SPEC, maxDelayMs: Number.MAX_SAFE_INTEGER })).toBe(1000 * 2 ** 30)
  })
})

describe('progressive delay over time (memory clock)', () => {
  it('admits the free attempts, then refuses until the delay since the last admitted attempt has passed', async () => {
    const { store, advance } = memoryStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    for (let i = 0; i < 5; i++) expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
    expect(await delay.attempt('a@example.com')).toEqual({ ok: false, retryMs: 1000 })
    advance(999)
    expect(await delay.attempt('a@example.com')).toEqual({ ok: false, retryMs: 1 })
    advance(1)
    expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
    // the next wait doubled
    expect(await delay.attempt('a@example.com')).toEqual({ ok: false, retryMs: 2000 })
  })

  it('never refuses for longer than maxDelayMs: the owner gets in after the delay however many guesses came before', async () => {
    const { store, advance } = memoryStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    for (let i = 0; i < 40; i++) {
      const decision = await delay.attempt('a@example.com')
      if (!decision.ok) {
        expect(decision.retryMs).toBeLessThanOrEqual(SPEC.maxDelayMs)
        advance(decision.retryMs)
        expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
      }
    }
  })

  it('does not count refused attempts: hammering during the delay does not lengthen it', async () => {
    const { store, advance } = memoryStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    for (let i = 0; i < 5; i++) await delay.attempt('a@example.com')
    for (let i = 0; i < 100; i++) await delay.attempt('a@example.com')
    advance(1000)
    expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
    expect(await delay.attempt('a@example.com')).toEqual({ ok: false, retryMs: 2000 })
  })

  it('forgets the count after windowMs without an attempt, and at once on forgive', async () => {
    const { store, advance } = memoryStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    for (let i = 0; i < 4; i++) await delay.attempt('a@example.com')
    advance(SPEC.windowMs - 1)
    // still counted: the 5th attempt is free, the 6th waits
    expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
    expect(await delay.attempt('a@example.com')).toMatchObject({ ok: false })
    advance(SPEC.windowMs)
    for (let i = 0; i < 5; i++) expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
    await delay.forgive('a@example.com')
    for (let i = 0; i < 5; i++) expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
  })

  it('keeps subjects and delay names apart', async () => {
    const { store } = memoryStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    const other = createProgressiveDelay(store, 'other', SPEC)
    for (let i = 0; i < 5; i++) await delay.attempt('a@example.com')
    expect(await delay.attempt('a@example.com')).toMatchObject({ ok: false })
    expect(await delay.attempt('b@example.com')).toEqual({ ok: true })
    expect(await other.attempt('a@example.com')).toEqual({ ok: true })
  })

  it('rejects a spec without positive integers', () => {
    const { store } = memoryStore()
    expect(() => createProgressiveDelay(store, 'login', { ...SPEC, baseDelayMs: 0 })).toThrow(/baseDelayMs/)
  })
})


// `noRedisServer` (the backends' `skip`): the Redis backend's cases are skipped without REDIS_URL (no Redis server; the PostgreSQL + Redis run sets it)
describe.each(STORE_BACKENDS)('progressive delay on $label', ({ make, clocked, skip: noRedisServer }) => {
  const newStore = useStores(make)
  const newClockedStore = useClockedStores(clocked)
  const MARK = 'login-device:mark'
  const SUBJECTS = { marked: 'a@example.com\n7', unmarked: 'a@example.com' }

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('decides on the marked subject while the mark lives by the store clock, else on the unmarked one, and answers the mark', async () => {
    const { store, advance } = newClockedStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    const markKey = store.fullKey(MARK)
    for (let i = 0; i < 5; i++) expect(await delay.attemptByMark(markKey, SUBJECTS)).toEqual({ decision: { ok: true }, mark: null })
    expect(await delay.attemptByMark(markKey, SUBJECTS)).toEqual({ decision: { ok: false, retryMs: expect.any(Number) }, mark: null })
    // the unmarked attempts were the address's own
    expect(await delay.attempt(SUBJECTS.unmarked)).toMatchObject({ ok: false })
    await store.set(MARK, 1234, 60_000)
    // marked: the device's delay, which the address's refusals did not touch
    for (let i = 0; i < 5; i++) expect(await delay.attemptByMark(markKey, SUBJECTS)).toEqual({ decision: { ok: true }, mark: '1234' })
    expect(await delay.attemptByMark(markKey, SUBJECTS)).toEqual({ decision: { ok: false, retryMs: expect.any(Number) }, mark: '1234' })
    expect(await delay.attempt(SUBJECTS.marked)).toMatchObject({ ok: false })
    // the address's gate (1 s) and the device's have run out, and so has the mark
    advance(60_000)
    expect(await delay.attemptByMark(markKey, SUBJECTS)).toEqual({ decision: { ok: true }, mark: null })
    // that attempt was the address's sixth: its next wait is 2 s; the device's sixth is still free of a gate
    const sixth = await delay.attempt(SUBJECTS.unmarked)
    expect(sixth.ok).toBe(false)
    if (!sixth.ok) expect(sixth.retryMs).toBeGreaterThan(1000)
    expect(await delay.attempt(SUBJECTS.marked)).toEqual({ ok: true })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('consumes limiters in order, touching none after the first refusal, then attempts the delay by mark, in one step', async () => {
    const store = newStore()
    const first = createRateLimiter(store, 'first', { points: 1, duration: 60, blockDuration: 0 })
    const second = createRateLimiter(store, 'second', { points: 5, duration: 60, blockDuration: 0 })
    const delay = createProgressiveDelay(store, 'login', SPEC)
    const admit = () => store.atomic.consumeThenAttemptByMark([first.step('ip'), second.step('ip+a')], delay.stepByMark(store.fullKey(MARK), SUBJECTS), store.now())
    // what the admitted attempt used, read in the same step: each limiter's window count, the delay's attempts
    expect(await admit()).toEqual({ limits: [{ ok: true }, { ok: true }], delay: { decision: { ok: true }, mark: null }, used: { limits: [1, 1], delay: 1 } })
    await store.set(MARK, 42, 60_000)
    // the first limiter is spent: it refuses, and neither the second nor the delay is touched
    expect(await admit()).toEqual({ limits: [{ ok: false, retryMs: expect.any(Number), permanent: false }], delay: null })
    for (let i = 0; i < 4; i++) expect(await second.consume('ip+a')).toEqual({ ok: true })
    expect(await second.consume('ip+a')).toMatchObject({ ok: false })
    // one attempt counted, on the unmarked subject (no mark then): four free ones left; none on the marked one
    for (let i = 0; i < 4; i++) expect(await delay.attempt(SUBJECTS.unmarked)).toEqual({ ok: true })
    expect(await delay.attempt(SUBJECTS.unmarked)).toMatchObject({ ok: false })
    for (let i = 0; i < 5; i++) expect(await delay.attempt(SUBJECTS.marked)).toEqual({ ok: true })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('attempts the delay only when every limiter allowed, and answers the mark', async () => {
    const store = newStore()
    const limiter = createRateLimiter(store, 'only', { points: 2, duration: 60, blockDuration: 0 })
    const delay = createProgressiveDelay(store, 'login', SPEC)
    await store.set(MARK, 42, 60_000)
    const admit = () => store.atomic.consumeThenAttemptByMark([limiter.step('ip')], delay.stepByMark(store.fullKey(MARK), SUBJECTS), store.now())
    expect(await admit()).toEqual({ limits: [{ ok: true }], delay: { decision: { ok: true }, mark: '42' }, used: { limits: [1], delay: 1 } })
    expect(await admit()).toEqual({ limits: [{ ok: true }], delay: { decision: { ok: true }, mark: '42' }, used: { limits: [2], delay: 2 } })
    expect(await admit()).toEqual({ limits: [{ ok: false, retryMs: expect.any(Number), permanent: false }], delay: null })
    // two attempts counted on the marked subject: three free ones left
    for (let i = 0; i < 3; i++) expect(await delay.attempt(SUBJECTS.marked)).toEqual({ ok: true })
    expect(await delay.attempt(SUBJECTS.marked)).toMatchObject({ ok: false })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('admits exactly freeAttempts of 50 concurrent marked attempts, counting none on the unmarked subject', async () => {
    const store = newStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    await store.set(MARK, 1, 60_000)
    const decisions = await Promise.all(Array.from({ length: 50 }, () => delay.attemptByMark(store.fullKey(MARK), SUBJECTS)))
    expect(admittedCount(decisions.map((d) => d.decision))).toBe(5)
    for (let i = 0; i < 5; i++) expect(await delay.attempt(SUBJECTS.unmarked)).toEqual({ ok: true })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('admits exactly freeAttempts of 50 concurrent attempts', async () => {
    const delay = createProgressiveDelay(newStore(), 'login', SPEC)
    const decisions = await Promise.all(Array.from({ length: 50 }, () => delay.attempt('a@example.com')))
    expect(admittedCount(decisions)).toBe(5)
    for (const d of decisions) if (!d.ok) expect(d.retryMs).toBeGreaterThan(0)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('answers the remaining wait, at most the current delay, and forgives', async () => {
    const delay = createProgressiveDelay(newStore(), 'login', SPEC)
    for (let i = 0; i < 5; i++) await delay.attempt('a@example.com')
    const refused = await delay.attempt('a@example.com')
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(refused.retryMs).toBeGreaterThan(0)
    if (!refused.ok) expect(refused.retryMs).toBeLessThanOrEqual(1000)
    await delay.forgive('a@example.com')
    expect(await delay.attempt('a@example.com')).toEqual({ ok: true })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('stores no subject in clear and gives every key a TTL', async () => {
    const store = newStore()
    const delay = createProgressiveDelay(store, 'login', SPEC)
    for (let i = 0; i < 6; i++) await delay.attempt('secret.person@example.com')
    const keys = await keysWithTtl(store)
    expect(keys.length).toBe(2)
    for (const { key, ttlMs } of keys) {
      expect(key).not.toContain('secret.person')
      expect(ttlMs).toBeGreaterThan(0)
      expect(ttlMs).toBeLessThanOrEqual(SPEC.windowMs)
    }
  })
})
