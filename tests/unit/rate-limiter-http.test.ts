import { describe, expect, it } from 'vitest'
import { configSchema } from '../../iam/lib/config-schema'
import { enforceRateLimit, throwTooManyRequests } from '../../iam/http/rate-limit'
import { getHttpFailure } from '../../iam/http/respond'
import { memoryStore } from '../helpers/limiter-stores'

const failureOf = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return getHttpFailure(error)
  }
  throw new Error('expected a thrown 429')
}

describe('throwTooManyRequests', () => {
  it('answers 429 with retry = ceil(ms / 1000) in the body and Retry-After', () => {
    expect(failureOf(() => throwTooManyRequests({ ok: false, retryMs: 898_500, permanent: false }))).toEqual({
      status: 429,
      body: { error: 'Too many requests', code: 'rate_limited', retry: 899 },
      text: false,
      headers: { 'Retry-After': '899' },
    })
  })

  it('answers retry "permanent" for a permanently blocked key', () => {
    expect(failureOf(() => throwTooManyRequests({ ok: false, retryMs: 31_000_000_000, permanent: true }))).toEqual({
      status: 429,
      body: { error: 'Too many requests', code: 'rate_limited', retry: 'permanent' },
      text: false,
      headers: { 'Retry-After': 'permanent' },
    })
  })
})

describe('enforceRateLimit', () => {
  it('lets allowed requests through and ends a rejected one with 429', async () => {
    const { store } = memoryStore()
    // the general union limiter as configured here: 1 per minute, 15 minute block, then permanent
    const part = { points: 1, duration: 60, blockDuration: 900 }
    const config = configSchema.parse({ rate_limiters: { apiTokensLimiters: { generalUnionLimiter: { burst: part, slow: part } } } })
    const deps = { store, config }
    await expect(enforceRateLimit(deps, 'generalUnionLimiter', { ip: '203.0.113.1' })).resolves.toBeUndefined()
    const first = await enforceRateLimit(deps, 'generalUnionLimiter', { ip: '203.0.113.1' }).catch(getHttpFailure)
    expect(first).toMatchObject({ status: 429, body: { error: 'Too many requests', retry: 900 }, headers: { 'Retry-After': '900' } })
    const second = await enforceRateLimit(deps, 'generalUnionLimiter', { ip: '203.0.113.1' }).catch(getHttpFailure)
    expect(second).toMatchObject({ status: 429, body: { error: 'Too many requests', retry: 'permanent' } })
  })
})
