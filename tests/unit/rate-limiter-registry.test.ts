import { describe, expect, it } from 'vitest'
import { INTERNAL_LIMITERS, LIMITER_NAMES, type LimiterName } from '../../iam/contract/limiter-names'
import { ROUTES } from '../../iam/contract/routes'
import type { RouteContract } from '../../iam/contract/define'
import { limiterRule, useDelay, useLimiter } from '../../iam/features/rate-limits/registry'
import { configSchema } from '../../iam/lib/config-schema'
import { memoryStore, STORE_BACKENDS, useStores } from '../helpers/limiter-stores'

const config = configSchema.parse({})
const tableNames = new Set((Object.values(ROUTES) as RouteContract[]).flatMap((route) => route.limiters))

describe('limiter registry and route table', () => {
  it('every limiter the table lists exists in the registry', () => {
    for (const name of tableNames) expect(LIMITER_NAMES, name).toContain(name)
  })

  it('every registry limiter is consumed by a route of the table or documented as internal', () => {
    const unused = LIMITER_NAMES.filter((name) => !tableNames.has(name) && !INTERNAL_LIMITERS[name])
    expect(unused).toEqual([])
  })

  it('each limiter has its own storage namespace, the one it had before the registries were merged', () => {
    const storage = Object.fromEntries(LIMITER_NAMES.map((name) => [name, limiterRule(name).storage]))
    expect(new Set(Object.values(storage)).size).toBe(LIMITER_NAMES.length)
    // renaming one forgets every running count and block: a change here must be deliberate
    expect(storage).toEqual({
      consumptionRateLimiter: 'api-tokens-consumption',
      generalUnionLimiter: 'api-tokens-general-union',
      newTokenCreationLimiter: 'api-tokens-new-token',
      revokeTokensLimiter: 'api-tokens-revoke',
      getMetadataTokenLimiter: 'api-tokens-metadata',
      rotationRateLimiter: 'api-tokens-rotate',
      ipRestrictionUpdate: 'api-tokens-ip-restriction-update',
      privilegeUpdate: 'api-tokens-privilege-update',
      revokeAllLimiter: 'api-tokens-revoke-all',
      signup: 'signup',
      loginIp: 'login-ip',
      loginAccount: 'login-account',
      loginAccountDelay: 'login-account-delay',
      oauth: 'oauth',
      refresh: 'refresh',
      links: 'auth.links',
      codes: 'auth.codes',
      forgotPassword: 'auth.forgotPassword',
      emailSignIn: 'auth.emailSignIn',
      emails: 'auth.emails',
      check: 'auth.check',
      passkeyOptions: 'auth.passkeyOptions',
      resendVerification: 'auth.resendVerification',
      export: 'auth.export',
      picture: 'auth.picture',
      mailbox: 'auth.mailbox',
      deviceUserCode: 'oidc.deviceUserCode',
      oidcRegistration: 'oidc.registration',
      organizationWebhooks: 'orgs.webhooks',
    } satisfies Record<LimiterName, string>)
  })

  it("each limiter's configuration path names a key of the configuration", () => {
    for (const name of LIMITER_NAMES) {
      const path = limiterRule(name).config.split(' ')[0]!
      const value = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config)
      expect(value, `${name}: ${path}`).toBeTypeOf('object')
    }
  })

  it('union and consumption limiters block permanently at the 1st rejection, operation limiters at the 2nd, the others never', () => {
    const permanentAfter = Object.fromEntries(LIMITER_NAMES.map((name) => [name, limiterRule(name).permanentAfter]))
    const api = ['consumptionRateLimiter', 'generalUnionLimiter']
    const operations = LIMITER_NAMES.slice(2, 9)
    for (const name of LIMITER_NAMES) {
      expect(permanentAfter[name], name).toBe(api.includes(name) ? 1 : operations.includes(name) ? 2 : 0)
    }
  })
})

describe('general union limiter with the default configuration (rate_limiters.apiTokensLimiters)', () => {
  it('general union: 1 per second burst with a 15 minute block, then permanent', async () => {
    const { store, advance } = memoryStore()
    const union = useLimiter({ store, config }, 'generalUnionLimiter')
    expect(await union.consume({ ip: '203.0.113.9' })).toEqual({ ok: true })
    expect(await union.consume({ ip: '203.0.113.9' })).toEqual({ ok: false, retryMs: 900_000, permanent: false })
    advance(900_000)
    // the burst block is over, the permanent block made by that first rejection is not
    expect(await union.consume({ ip: '203.0.113.9' })).toMatchObject({ ok: false, permanent: true })
    // listing counts apart (rule 3: `<IP>_list-metadata`)
    expect(await union.consume({ ip: '203.0.113.9', on: 'list-metadata' })).toEqual({ ok: true })
  })

  it('general union: the slow part allows 50 per minute, the 51st blocks for an hour', async () => {
    const { store, advance } = memoryStore()
    const union = useLimiter({ store, config }, 'generalUnionLimiter')
    for (let i = 0; i < 50; i++) {
      expect(await union.consume({ ip: '203.0.113.9' })).toEqual({ ok: true })
      advance(1_000)
    }
    // 50 s in: past the last burst window, inside the slow one
    expect(await union.consume({ ip: '203.0.113.9' })).toEqual({ ok: false, retryMs: 3_600_000, permanent: false })
  })
})

// `noRedisServer` (the backends' `skip`): the Redis backend's cases are skipped without REDIS_URL (no Redis server; the PostgreSQL + Redis run sets it)
describe.each(STORE_BACKENDS)('registry limiters with the default configuration on $label', ({ make, skip: noRedisServer }) => {
  const newStore = useStores(make)
  const deps = () => ({ store: newStore(), config })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('one limiter instance per store: two routes asking by name share one count', async () => {
    const shared = deps()
    for (let i = 0; i < 10; i++) expect((await useLimiter(shared, 'codes').consume({ ip: '203.0.113.9', on: 'ip' })).ok).toBe(true)
    expect((await useLimiter(shared, 'codes').consume({ ip: '203.0.113.9', on: 'ip' })).ok).toBe(false)
    expect((await useLimiter(deps(), 'codes').consume({ ip: '203.0.113.9', on: 'ip' })).ok).toBe(true)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('consumption: 10 failed verifications per minute, the 11th numeric, later ones permanent; a token counts apart from its IP', async () => {
    const consumption = useLimiter(deps(), 'consumptionRateLimiter')
    const facts = { ip: '203.0.113.9', on: 'verify' } as const
    for (let i = 0; i < 10; i++) expect((await consumption.consume(facts)).ok).toBe(true)
    expect(await consumption.consume(facts)).toEqual({ ok: false, retryMs: 3_600_000, permanent: false })
    expect(await consumption.consume(facts)).toMatchObject({ ok: false, permanent: true })
    expect(await consumption.consume({ token: 'api_abc' })).toEqual({ ok: true })
    expect(await consumption.consume({ ip: '203.0.113.9' })).toEqual({ ok: true })
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('operation limiters: 1st and 2nd rejections numeric with their block, the 3rd permanent, per IP and user', async () => {
    const shared = deps()
    const blocks = {
      newTokenCreationLimiter: [5, 3_600_000],
      revokeTokensLimiter: [5, 7_200_000],
      getMetadataTokenLimiter: [20, 1_800_000],
      rotationRateLimiter: [5, 7_200_000],
      ipRestrictionUpdate: [5, 1_800_000],
      privilegeUpdate: [5, 1_800_000],
      revokeAllLimiter: [5, 7_200_000],
    } as const
    const facts = { ip: '203.0.113.9', userId: 1 }
    for (const [name, [points, blockMs]] of Object.entries(blocks)) {
      const limiter = useLimiter(shared, name as keyof typeof blocks)
      for (let i = 0; i < points; i++) expect((await limiter.consume(facts)).ok, name).toBe(true)
      expect(await limiter.consume(facts), name).toEqual({ ok: false, retryMs: blockMs, permanent: false })
      // the 2nd answers what is left of the block the 1st started (Redis keeps real time)
      const second = await limiter.consume(facts)
      expect(second, name).toMatchObject({ ok: false, permanent: false })
      expect(!second.ok && second.retryMs <= blockMs, name).toBe(true)
      expect(await limiter.consume(facts), name).toMatchObject({ ok: false, permanent: true })
      expect((await limiter.consume({ ...facts, userId: 2 })).ok, name).toBe(true)
    }
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('per-IP limiters count an IPv6 client by its /64', async () => {
    const check = useLimiter(deps(), 'check')
    for (let i = 0; i < 30; i++) expect((await check.consume({ ip: `2001:db8:1:2::${i + 1}` })).ok).toBe(true)
    expect((await check.consume({ ip: '2001:db8:1:2:ffff::1' })).ok).toBe(false)
    expect((await check.consume({ ip: '2001:db8:1:3::1' })).ok).toBe(true)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('login: the per-IP budget is 5 times the per IP + email one, and case variants of an address share one', async () => {
    const shared = deps()
    const account = useLimiter(shared, 'loginAccount')
    for (let i = 0; i < 10; i++) expect((await account.consume({ ip: '203.0.113.9', email: i % 2 ? 'A@x.org' : 'a@x.org' })).ok).toBe(true)
    expect((await account.consume({ ip: '203.0.113.9', email: ' a@X.org ' })).ok).toBe(false)
    const perIp = useLimiter(shared, 'loginIp')
    for (let i = 0; i < 50; i++) expect((await perIp.consume({ ip: '203.0.113.9' })).ok).toBe(true)
    expect((await perIp.consume({ ip: '203.0.113.9' })).ok).toBe(false)
  })

  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('login delay: a known device has its own subject apart from the address', async () => {
    const delay = useDelay(deps(), 'loginAccountDelay')
    // the 5 free failures (the default) and the attempt after them pass at once
    for (let i = 0; i < 6; i++) expect((await delay.attempt({ email: 'a@x.org' })).ok).toBe(true)
    expect((await delay.attempt({ email: 'A@x.org' })).ok).toBe(false)
    expect((await delay.attempt({ email: 'a@x.org', device: 7 })).ok).toBe(true)
    await delay.forgive({ email: 'a@x.org' })
    expect((await delay.attempt({ email: 'a@x.org' })).ok).toBe(true)
  })
})
