/**
 * Outage drill: PostgreSQL, then Redis, taken away from a running IAM while logins,
 * refreshes and API-token verifications run in a loop, then given back. The shared servers stay
 * up (other test files use them): a TCP proxy sits between this IAM and each of them, and "stops"
 * the service by closing every proxied connection and refusing new ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, authedGet, call, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy'
import { createThrowawayPg } from '../helpers/test-database'
import { waitUntil } from '../helpers/wait'
import { jsonOf, manage, newToken, refOf, verify, WIDE, WIDE_LIMITERS, type CreatedToken } from './api-tokens-http'

const { DATABASE_URL, REDIS_URL } = process.env
const external = !!DATABASE_URL && !!REDIS_URL
// A Cluster client reaches each primary at the address the Cluster's slot map names, past any proxy
// in front of a seed, and the Cluster is shared with the other files: no way to take it away here
const onCluster = !!REDIS_URL?.startsWith('redis+cluster:')
/** A request needing a dependency that is down is answered 503 within this. */
const ANSWER_WITHIN_MS = 2000
/** Answers the workers must get in each phase: the drill moves on by what happened, not by the wall clock. */
const ANSWERS_PER_PHASE = 20

/** postgres/redis: that dependency is down; recovering: it is back, the IAM may still be reconnecting */
type Phase = 'postgres' | 'redis' | 'recovering' | null
/** `during`: the phase when the request was sent, or 'recovering' when an outage began or ended while it ran */
type Answer = { what: string; status: number; ms: number; retryAfter: string | null; during: Phase; sentAt: number; answeredAt: number }

let iam: IamServer
let pgProxy: TcpProxy
let redisProxy: TcpProxy
let dropDatabase: () => Promise<void>
let token: CreatedToken
let owner: Session

const hostPort = (url: string, defaultPort: number) => {
  const u = new URL(url)
  return { host: u.hostname, port: Number(u.port || defaultPort) }
}

beforeAll(async () => {
  if (!external || onCluster) return
  const pg = await createThrowawayPg(DATABASE_URL)
  dropDatabase = pg.drop
  pgProxy = await startTcpProxy(hostPort(pg.url, 5432))
  redisProxy = await startTcpProxy(hostPort(REDIS_URL, 6379))
  const databaseUrl = new URL(pg.url)
  databaseUrl.host = pgProxy.address
  const redisUrl = new URL(REDIS_URL)
  redisUrl.host = redisProxy.address
  const prefix = `drill${Date.now().toString(36)}`
  iam = await startIam({
    share: { databaseUrl: databaseUrl.toString(), storagePrefix: prefix },
    config: {
      ...PROXY_CONFIG,
      storage: { driver: 'redis', url: redisUrl.toString(), prefix },
      rate_limiters: { apiTokensLimiters: WIDE_LIMITERS, login: WIDE, refresh: WIDE },
    },
  })
  owner = await signupUser(iam, { client: { ip: '198.51.100.1' } })
  token = await newToken(iam, owner)
}, 300_000)

afterAll(async () => {
  if (!external || onCluster) return
  await iam?.stop()
  await Promise.all([pgProxy?.close(), redisProxy?.close()])
  await dropDatabase?.()
})

const timed = async (what: string, phase: () => Phase, request: () => Promise<Response>): Promise<{ answer: Answer; res: Response }> => {
  const started = performance.now()
  const sentIn = phase()
  const res = await request()
  const ms = performance.now() - started
  const during = phase() === sentIn ? sentIn : 'recovering'
  return { answer: { what, status: res.status, ms, retryAfter: res.headers.get('retry-after'), during, sentAt: started, answeredAt: started + ms }, res }
}

async function readiness(): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${iam.url}/health/ready`)
  return { status: res.status, body: await jsonOf(res) }
}

/** Polls readiness until it is 200 again; bounded, so a dependency that never comes back fails. */
async function untilReady(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await readiness()).status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('readiness did not come back after the dependency returned')
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

// skipped without DATABASE_URL and REDIS_URL: the drill stops and restarts the database and the
// store, which the embedded defaults cannot do; the PostgreSQL + Redis run sets both. Skipped on a
// Redis Cluster too (REDIS_URL redis+cluster://, scripts/cluster-drill.mjs): its client connects to
// every primary directly, so the one proxy cannot cut it off; CI's pass on one server runs it.
describe.skipIf(!external || onCluster)('outage drill (PostgreSQL + Redis only: the embedded defaults cannot go away; not on a Redis Cluster: its client reaches every primary past the one proxy)', () => {
  it('answers only 2xx/4xx/503 (each 503 within 2 s with Retry-After) through a PostgreSQL and a Redis outage, and loses no count or session', async () => {
    const answers: Answer[] = []
    let during: Phase = null
    let running = true
    let verified = 0
    const sessions = await Promise.all([1, 2, 3, 4].map((n) => signupUser(iam, { client: { ip: `198.51.100.${10 + n}` } })))

    // Workers: each loops one kind of request until the drill ends.
    const loginWorker = async () => {
      const s = sessions[0]!
      while (running) {
        const { answer } = await timed('login', () => during, () => call(iam, 'POST', '/login', { client: s, body: { email: s.email, password: s.password } }))
        answers.push(answer)
      }
    }
    const refreshWorker = async (start: Session) => {
      let s = start
      while (running) {
        const { answer, res } = await timed('refresh', () => during, () => refresh(iam, s))
        answers.push(answer)
        if (res.status === 201) s = await applyRefresh(s, res)
        else await res.body?.cancel()
      }
      return s
    }
    const verifyWorker = async () => {
      while (running) {
        const { answer, res } = await timed('verify', () => during, () => verify(iam, token.rawApiKey, 'full'))
        answers.push(answer)
        if (res.status === 200) verified++
        await res.body?.cancel()
      }
    }
    // full authentication's read goes out on the pipelined connections (iam/fast/pipelined.ts), not the pool
    const fullAuthWorker = async () => {
      while (running) {
        const { answer, res } = await timed('full authentication', () => during, () => authedGet(iam, sessions[3]!))
        answers.push(answer)
        await res.body?.cancel()
      }
    }
    const workers = Promise.all([loginWorker(), refreshWorker(sessions[1]!), refreshWorker(sessions[2]!), verifyWorker(), verifyWorker(), fullAuthWorker()])

    const readinessDuring: Record<string, { status: number; body: Record<string, unknown> }> = {}
    const cuts: number[] = []
    const answeredSince = async (from: number, what: string, phase?: Phase) =>
      waitUntil(() => answers.slice(from).filter((a) => phase === undefined || a.during === phase).length >= ANSWERS_PER_PHASE, what, 30_000)
    for (const [name, proxy] of [['postgres', pgProxy], ['redis', redisProxy]] as const) {
      await answeredSince(answers.length, `answers before the ${name} outage`)
      during = name
      cuts.push(performance.now())
      await proxy.down()
      const cut = answers.length
      await answeredSince(cut, `answers during the ${name} outage`, name)
      readinessDuring[name] = await readiness()
      await answeredSince(answers.length, `more answers during the ${name} outage`, name)
      await proxy.up()
      during = 'recovering'
      await untilReady()
      during = null
    }
    await answeredSince(answers.length, 'answers after both outages')
    running = false
    const [, last1, last2] = (await workers) as [void, Session, Session, void, void, void]

    // Figures for the report: how long a request took to get its 503, per outage.
    for (const name of ['postgres', 'redis'] as const) {
      const unavailable = answers.filter((a) => a.status === 503 && a.during === name).map((a) => a.ms)
      console.log(`[drill] ${name} down: ${unavailable.length} answers 503, median ${median(unavailable).toFixed(0)} ms, max ${Math.max(0, ...unavailable).toFixed(0)} ms; ${answers.filter((a) => a.during === name).length} requests in all`)
    }

    const unexpected = answers.filter((a) => !(a.status < 500 || a.status === 503))
    expect(unexpected).toEqual([])
    const late = answers.filter((a) => a.status === 503 && (a.ms >= ANSWER_WITHIN_MS || !/^\d+$/.test(a.retryAfter ?? '')))
    expect(late).toEqual([])
    // each outage was felt: the drill exercised what it claims to
    expect(answers.some((a) => a.status === 503 && a.during === 'postgres')).toBe(true)
    expect(answers.some((a) => a.status === 503 && a.during === 'redis')).toBe(true)
    expect(answers.some((a) => a.what === 'full authentication' && a.status === 503 && a.during === 'postgres')).toBe(true)
    // outside the outages (and once readiness is back) everything succeeds
    const between = answers.filter((a) => a.during === null && a.status >= 400)
    expect(between.map((a) => `${a.what} ${a.status}`)).toEqual([])

    expect(readinessDuring.postgres).toEqual({ status: 503, body: { status: 'unavailable', checks: { database: 'down', storage: 'up', mail: 'outbox' }, code: 'service_unavailable' } })
    expect(readinessDuring.redis).toEqual({ status: 503, body: { status: 'unavailable', checks: { database: 'up', storage: 'down', mail: 'outbox' }, code: 'service_unavailable' } })
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'up', storage: 'up', mail: 'outbox' } } })

    // Counts exact: every verification answered 200 was counted once; of the refused ones, only a
    // statement in flight at the instant its connection was cut may have committed unseen (the
    // server ran it, the answer was lost with the connection: no client can know). None other.
    const inFlightAtCut = answers.filter((a) => a.what === 'verify' && a.status === 503 && cuts.some((cut) => a.sentAt <= cut && a.answeredAt >= cut))
    const meta = (await jsonOf(await manage(iam, owner, 'metadata', refOf(token)))) as { data: { tokenMeta: { usageCount: number } } }
    console.log(`[drill] verifications answered 200: ${verified}; counted: ${meta.data.tokenMeta.usageCount}; in flight at a cut: ${inFlightAtCut.length}`)
    expect(meta.data.tokenMeta.usageCount).toBeGreaterThanOrEqual(verified)
    expect(meta.data.tokenMeta.usageCount).toBeLessThanOrEqual(verified + inFlightAtCut.length)
    // Sessions intact: the last token of each refreshing session still rotates, and logins work.
    for (const s of [last1, last2]) expect((await refresh(iam, s)).status).toBe(201)
    const login = await call(iam, 'POST', '/login', { client: sessions[0]!, body: { email: sessions[0]!.email, password: sessions[0]!.password } })
    expect(login.status).toBe(200)
  }, 180_000)
})
