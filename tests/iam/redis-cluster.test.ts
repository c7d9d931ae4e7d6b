/**
 * The IAM on a Redis Cluster of three primaries (`redis+cluster://`): every store step that names
 * several keys must name keys of one hash slot, or the Cluster refuses it (CROSSSLOT) and the
 * request fails. Through the IAM: the login limiters, the per-account delay and its device mark,
 * the refunds and resets a success settles, refresh grace pairs and the second-factor failure
 * budget. On the store the IAM boots with: nonces (one winner), and limiter bans with inspect and
 * reset over callers of many slots.
 *
 * Runs where `redis-server` is installed and the suite runs against PostgreSQL + Redis (REDIS_URL
 * set: .ci/run's second pass). That whole pass runs on a Cluster with `npm run drill:cluster`
 * (scripts/cluster-drill.mjs; docs/operations.md, "Redis high availability").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRateLimiter } from '../../iam/features/rate-limits/limiter'
import { createStore, type SharedStore } from '../../iam/lib/storage'
import { call, newDevice, PROXY_CONFIG, refresh, setCookieValue, signupUser, type Client } from '../helpers/accounts'
import { signupConfirmed } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { HAS_REDIS_SERVER, startRedisCluster, type RedisCluster } from '../helpers/redis-servers'
import { authed, enrolTotp, totpCode } from './second-factor-http'

// skipped without redis-server (nothing to start) or without REDIS_URL (only CI's PostgreSQL + Redis pass runs it)
const run = HAS_REDIS_SERVER && !!process.env.REDIS_URL
const LOGIN = { points: 3, duration: 600, blockDuration: 600 }

let cluster: RedisCluster
let iam: IamServer
let store: SharedStore

beforeAll(async () => {
  if (!run) return
  cluster = await startRedisCluster(3)
  const prefix = `cluster${Date.now().toString(36)}`
  iam = await startIam({ config: { ...PROXY_CONFIG, storage: { driver: 'redis', url: cluster.url, prefix }, rate_limiters: { login: LOGIN } } })
  store = createStore({ driver: 'redis', url: cluster.url, prefix: `${prefix}s` })
}, 120_000)

afterAll(async () => {
  await iam?.stop()
  await store?.close()
  await cluster?.stop()
})

const login = (client: Client, email: string, password: string) => call(iam, 'POST', '/login', { client, body: { email, password } })

describe.skipIf(!run)('the IAM on a Redis Cluster (needs redis-server; runs with REDIS_URL set)', () => {
  it('limits wrong passwords per address and device, forgives them on a right one, and keeps the block where it was made', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.40' } })
    const guesser = await newDevice(iam, { ip: '198.51.100.41' })
    for (let i = 0; i < LOGIN.points; i++) expect((await login(guesser, user.email, 'not the password at all')).status).toBe(401)
    const refused = await login(guesser, user.email, 'not the password at all')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    // the owner, elsewhere, still gets in (a success settles refunds and resets over several slots) ...
    expect((await login(user, user.email, user.password)).status).toBe(200)
    // ... and again, now on the device's mark
    expect((await login(user, user.email, user.password)).status).toBe(200)
    // the block made from the guessing address stays
    expect((await login(guesser, user.email, user.password)).status).toBe(429)
  })

  it('gives a duplicate refresh within the grace window the same pair', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.42' } })
    const first = await refresh(iam, s)
    const second = await refresh(iam, s)
    expect([first.status, second.status]).toEqual([201, 201])
    expect(setCookieValue(second, 'session')).toBe(setCookieValue(first, 'session'))
  })

  it('locks second-factor code entry once the account-wide failure budget is spent', async () => {
    const user = await signupConfirmed(iam, { dataDir: iam.dataDir }, { client: { ip: '198.51.100.43' } })
    const { secret } = await enrolTotp(iam, user)
    const statuses: number[] = []
    for (let i = 0; i < 10; i++) statuses.push((await authed(iam, user, 'POST', '/auth/totp/disable', { code: totpCode(secret, 1000) })).status)
    expect(statuses).toEqual([...Array<number>(9).fill(400), 429])
    const locked = await authed(iam, user, 'POST', '/auth/totp/disable', { code: totpCode(secret) })
    expect(locked.status).toBe(429)
    expect(((await locked.json()) as Json).code).toEqual(expect.any(String))
  })

  it('lets exactly one of many concurrent claims of a nonce win', async () => {
    const claims = await Promise.all(Array.from({ length: 50 }, () => store.setIfAbsent('hmac:nonce:gateway:r1', 1, 60_000)))
    expect(claims.filter(Boolean)).toHaveLength(1)
  })

  it('bans a caller after its rejections, and inspects and resets callers of many slots in one call', async () => {
    const limiter = createRateLimiter(store, 'clusterBan', { points: 1, duration: 60, blockDuration: 60 }, { permanentAfter: 1 })
    const callers = Array.from({ length: 20 }, (_, i) => `198.51.100.${i}`)
    expect((await Promise.all(callers.map((c) => limiter.consume(c)))).every((d) => d.ok)).toBe(true)
    expect(await limiter.consume(callers[0]!)).toMatchObject({ ok: false, permanent: false })
    expect(await limiter.consume(callers[0]!)).toMatchObject({ ok: false, permanent: true })
    expect(await limiter.inspect(callers)).toEqual({ blocked: true, dirty: callers })
    await limiter.resetAll(callers)
    // a reset forgets windows and blocks, never the ban
    expect(await limiter.inspect(callers.slice(1))).toEqual({ blocked: false, dirty: [] })
    expect(await limiter.isBlocked(callers[0]!)).toBe(true)
    await limiter.reset(callers[0]!, { unblock: true })
    expect(await limiter.isBlocked(callers[0]!)).toBe(false)
  })
})
