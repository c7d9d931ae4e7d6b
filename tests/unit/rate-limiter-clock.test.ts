// Time-dependent rules on the memory store, whose clock the test moves (no sleeping). On Redis the
// same windows and blocks are key expiries, checked in rate-limiter.test.ts through PTTL.
import { describe, expect, it } from 'vitest'
import { createRateLimiter, PERMANENT_BLOCK_MS, retrySeconds } from '../../iam/features/rate-limits/limiter'
import { memoryStore, ttlOfFullKey } from '../helpers/limiter-stores'

describe('rate limiter over time (memory clock)', () => {
  it('answers the exact remaining window as retry and allows again when the window ends', async () => {
    const { store, advance } = memoryStore()
    const limiter = createRateLimiter(store, 'window', { points: 2, duration: 30, blockDuration: 0 })
    await limiter.consume('ip')
    advance(12_345)
    await limiter.consume('ip')
    expect(await limiter.consume('ip')).toEqual({ ok: false, retryMs: 17_655, permanent: false })
    expect(retrySeconds(17_655)).toBe(18)
    advance(17_654)
    expect(await limiter.consume('ip')).toEqual({ ok: false, retryMs: 1, permanent: false })
    advance(1)
    expect(await limiter.consume('ip')).toEqual({ ok: true })
  })

  it('keeps a fixed window: later consumes do not extend it', async () => {
    const { store, advance } = memoryStore()
    const limiter = createRateLimiter(store, 'fixed', { points: 10, duration: 60, blockDuration: 0 })
    await limiter.consume('ip')
    advance(10_000)
    await limiter.consume('ip')
    expect(await ttlOfFullKey(store, limiter.keysOf('ip').windows[0])).toBe(50_000)
  })

  it('blocks for exactly blockDuration, counting down', async () => {
    const { store, advance } = memoryStore()
    const limiter = createRateLimiter(store, 'block', { points: 1, duration: 1, blockDuration: 900 })
    await limiter.consume('ip')
    expect(await limiter.consume('ip')).toEqual({ ok: false, retryMs: 900_000, permanent: false })
    advance(1_500)
    expect(await limiter.consume('ip')).toEqual({ ok: false, retryMs: 898_500, permanent: false })
    expect(retrySeconds(898_500)).toBe(899)
    advance(898_499)
    expect(await limiter.isBlocked('ip')).toBe(true)
    advance(1)
    expect(await limiter.isBlocked('ip')).toBe(false)
    expect(await limiter.consume('ip')).toEqual({ ok: true })
  })

  it('does not block when blockDuration is 0', async () => {
    const { store } = memoryStore()
    const limiter = createRateLimiter(store, 'zero', { points: 1, duration: 5, blockDuration: 0 })
    await limiter.consume('ip')
    await limiter.consume('ip')
    expect(await limiter.isBlocked('ip')).toBe(false)
    expect(await ttlOfFullKey(store, limiter.keysOf('ip').blocks[0])).toBeNull()
  })

  it('counts consecutive rejections across an expired block: the 2nd creates the permanent block', async () => {
    const { store, advance } = memoryStore()
    // block (60 s) shorter than the window (600 s): after the block the window is still full
    const limiter = createRateLimiter(store, 'op', { points: 1, duration: 600, blockDuration: 60 }, { permanentAfter: 2 })
    await limiter.consume('ip_1')
    expect(await limiter.consume('ip_1')).toEqual({ ok: false, retryMs: 60_000, permanent: false })
    advance(61_000)
    expect(await limiter.consume('ip_1')).toEqual({ ok: false, retryMs: 60_000, permanent: false })
    expect(await limiter.consume('ip_1')).toEqual({ ok: false, retryMs: PERMANENT_BLOCK_MS, permanent: true })
  })

  it('lets the union burst part refill while the slow part keeps counting', async () => {
    const { store, advance } = memoryStore()
    const union = createRateLimiter(store, 'union', [
      { points: 1, duration: 1, blockDuration: 900 },
      { points: 3, duration: 60, blockDuration: 3600 },
    ])
    for (let i = 0; i < 3; i++) {
      expect(await union.consume('ip')).toEqual({ ok: true })
      advance(1_000)
    }
    // burst has room again, slow is spent: the slow part rejects and blocks for an hour
    expect(await union.consume('ip')).toEqual({ ok: false, retryMs: 3_600_000, permanent: false })
  })

  it('keeps a permanent block for PERMANENT_BLOCK_MS (365 days), then forgets it', async () => {
    const { store, advance } = memoryStore()
    const limiter = createRateLimiter(store, 'perm', { points: 1, duration: 1, blockDuration: 900 }, { permanentAfter: 1 })
    await limiter.consume('ip')
    await limiter.consume('ip')
    advance(30 * 24 * 3600_000)
    expect(await limiter.consume('ip')).toEqual({ ok: false, retryMs: PERMANENT_BLOCK_MS - 30 * 24 * 3600_000, permanent: true })
    advance(PERMANENT_BLOCK_MS)
    expect(await limiter.consume('ip')).toEqual({ ok: true })
  })

  it('forgets consecutive rejections once no window or block could link them', async () => {
    const { store, advance } = memoryStore()
    const limiter = createRateLimiter(store, 'forget', { points: 1, duration: 10, blockDuration: 20 }, { permanentAfter: 2 })
    await limiter.consume('ip')
    await limiter.consume('ip')
    const rejections = limiter.keysOf('ip').rejections
    expect(await ttlOfFullKey(store, rejections)).toBe(21_000)
    advance(21_000)
    expect(await ttlOfFullKey(store, rejections)).toBeNull()
  })
})
