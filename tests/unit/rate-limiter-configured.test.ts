import { describe, expect, it } from 'vitest'
import { getConfiguredLimiters } from '../../iam/features/rate-limits/configured-limiters'
import { configSchema } from '../../iam/lib/config-schema'
import { memoryStore } from '../helpers/limiter-stores'

const config = configSchema.parse({})

describe('configured limiters (spec "API token rate limiters" defaults)', () => {
  it('builds one set per store', () => {
    const { store } = memoryStore()
    expect(getConfiguredLimiters(store, config)).toBe(getConfiguredLimiters(store, config))
    expect(getConfiguredLimiters(memoryStore().store, config)).not.toBe(getConfiguredLimiters(store, config))
  })

  it('general union: 1 per second burst with a 15 minute block, then permanent', async () => {
    const { store, advance } = memoryStore()
    const { generalUnion } = getConfiguredLimiters(store, config)
    expect(await generalUnion.consume('203.0.113.9')).toEqual({ ok: true })
    expect(await generalUnion.consume('203.0.113.9')).toEqual({ ok: false, retryMs: 900_000, permanent: false })
    advance(900_000)
    // the burst block is over, the permanent block made by that first rejection is not
    expect(await generalUnion.consume('203.0.113.9')).toMatchObject({ ok: false, permanent: true })
  })

  it('general union: the slow part allows 50 per minute, the 51st blocks for an hour', async () => {
    const { store, advance } = memoryStore()
    const { generalUnion } = getConfiguredLimiters(store, config)
    for (let i = 0; i < 50; i++) {
      expect(await generalUnion.consume('ip')).toEqual({ ok: true })
      advance(1_000)
    }
    // 50 s in: past the last burst window, inside the slow one
    expect(await generalUnion.consume('ip')).toEqual({ ok: false, retryMs: 3_600_000, permanent: false })
  })

  it('consumption: 10 failed verifications per minute, the 11th numeric, later ones permanent', async () => {
    const { store } = memoryStore()
    const { consumption } = getConfiguredLimiters(store, config)
    for (let i = 0; i < 10; i++) expect((await consumption.consume('ip_verify')).ok).toBe(true)
    expect(await consumption.consume('ip_verify')).toEqual({ ok: false, retryMs: 3_600_000, permanent: false })
    expect(await consumption.consume('ip_verify')).toMatchObject({ ok: false, permanent: true })
  })

  it('operation limiters: 1st and 2nd rejections numeric with their block, the 3rd permanent', async () => {
    const { store } = memoryStore()
    const { operations } = getConfiguredLimiters(store, config)
    const blocks = {
      newTokenCreationLimiter: [5, 3_600_000],
      revokeTokensLimiter: [5, 7_200_000],
      getMetadataTokenLimiter: [20, 1_800_000],
      rotationRateLimiter: [5, 7_200_000],
      ipRestrictionUpdate: [5, 1_800_000],
      privilegeUpdate: [5, 1_800_000],
    } as const
    for (const [name, [points, blockMs]] of Object.entries(blocks)) {
      const limiter = operations[name as keyof typeof blocks]
      for (let i = 0; i < points; i++) expect((await limiter.consume('ip_1')).ok, name).toBe(true)
      expect(await limiter.consume('ip_1'), name).toEqual({ ok: false, retryMs: blockMs, permanent: false })
      expect(await limiter.consume('ip_1'), name).toEqual({ ok: false, retryMs: blockMs, permanent: false })
      expect(await limiter.consume('ip_1'), name).toMatchObject({ ok: false, permanent: true })
    }
  })
})
