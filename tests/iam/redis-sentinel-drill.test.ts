/**
 * Sentinel fail-over drill: an IAM on `redis+sentinel://` (a primary, one replica, three sentinels
 * that give up on a silent primary after 1 s) under a small sign-in and API-token load; the primary
 * is killed (SIGKILL) mid-load. The sentinels promote the replica, the IAM's client follows it, and
 * in between every request is answered 503 within 2 s (lib/outage.ts). Nothing the replica had is
 * lost: sessions made before still refresh, failed-login counts are not reset.
 *
 * Runs where `redis-server` is installed and the suite runs against PostgreSQL + Redis (REDIS_URL
 * set: .ci/run's second pass); its own Redis processes are on free loopback ports and are removed
 * afterwards. docs/operations.md, "Redis high availability", explains the figures it prints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { currentPrimaryPort, HAS_REDIS_SERVER, startSentinelSet, type SentinelSet } from '../helpers/redis-servers'
import { waitUntil } from '../helpers/wait'
import { newToken, verify, WIDE_LIMITERS, type CreatedToken } from './api-tokens-http'

// skipped without redis-server (nothing to start) or without REDIS_URL (only CI's PostgreSQL + Redis pass runs it)
const run = HAS_REDIS_SERVER && !!process.env.REDIS_URL
/** The outage promise (lib/outage.ts): a request that needs a store without a primary gets its 503 within this. */
const ANSWER_WITHIN_MS = 2000
/**
 * Back within this after the kill: the sentinels' down-after (1 s) and election (about 1 s with
 * three sentinels on one host), then the client's next reconnect (at most 1 s apart), with the
 * slack a loaded 2-core runner needs. docs/operations.md gives the production figure.
 */
const BACK_WITHIN_MS = 20_000
const ANSWERS_PER_PHASE = 20
const FAILED_LOGINS = 4

type Answer = { what: string; status: number; ms: number; retryAfter: string | null; sentAt: number }

let set: SentinelSet
let iam: IamServer
let prefix: string
let owner: Session
let token: CreatedToken

beforeAll(async () => {
  if (!run) return
  set = await startSentinelSet({ replicas: 1, sentinels: 3, downAfterMs: 1000 })
  prefix = `sentinel${Date.now().toString(36)}`
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      storage: { driver: 'redis', url: set.url, prefix },
      rate_limiters: { apiTokensLimiters: WIDE_LIMITERS, login: { points: 1000, duration: 600, blockDuration: 600 } },
    },
  })
  owner = await signupUser(iam, { client: { ip: '198.51.100.1' } })
  token = await newToken(iam, owner)
}, 120_000)

afterAll(async () => {
  await iam?.stop()
  await set?.stop()
})

/** Every limiter window under this IAM's prefix with its count, read on `port` (clocked values: `<expiry>@<count>`). */
async function windowCounts(port: number): Promise<Map<string, number>> {
  const primary = set.primary.port === port ? set.primary : set.replicas.find((r) => r.port === port)!
  const c = primary.client()
  await c.connect()
  const keys = await c.keys(`${prefix}:v2:rl:*:w*`)
  const values = keys.length ? await c.mget(...keys) : []
  c.disconnect()
  return new Map(keys.map((key, i) => [key, Number((values[i] ?? '0@0').split('@')[1])]))
}

describe.skipIf(!run)('Redis Sentinel fail-over drill (needs redis-server; runs with REDIS_URL set)', () => {
  it('answers only 2xx or 503 (each within 2 s) while the primary is killed and replaced, and keeps sessions and failed-login counts', async () => {
    // failed logins before the fail-over: counted in the IP + address limiter's window
    const victim = await signupUser(iam, { client: { ip: '198.51.100.2' } })
    for (let i = 0; i < FAILED_LOGINS; i++) {
      const res = await call(iam, 'POST', '/login', { client: victim, body: { email: victim.email, password: 'not the password at all' } })
      expect(res.status).toBe(401)
    }
    // what the replica holds for sure: WAIT returns once the replica acknowledged every write so far
    const before = set.primary.client()
    await before.connect()
    expect(await before.wait(1, 5000)).toBe(1)
    before.disconnect()
    const countsBefore = await windowCounts(set.primary.port)
    expect([...countsBefore.values()].some((n) => n >= FAILED_LOGINS)).toBe(true)

    const signedIn = await signupUser(iam, { client: { ip: '198.51.100.3' } })
    const answers: Answer[] = []
    const inFlight = new Set<{ what: string; sentAt: number }>()
    let running = true
    const timed = async (what: string, request: () => Promise<Response>) => {
      const sentAt = performance.now()
      const pending = { what, sentAt }
      inFlight.add(pending)
      try {
        const res = await request()
        answers.push({ what, status: res.status, ms: performance.now() - sentAt, retryAfter: res.headers.get('retry-after'), sentAt })
        await res.body?.cancel()
      } finally {
        inFlight.delete(pending)
      }
    }
    const loginWorker = async () => {
      while (running) await timed('sign-in', () => call(iam, 'POST', '/login', { client: owner, body: { email: owner.email, password: owner.password } }))
    }
    const verifyWorker = async () => {
      while (running) await timed('verify', () => verify(iam, token.rawApiKey, 'full'))
    }
    const workers = Promise.all([loginWorker(), verifyWorker(), verifyWorker()])
    // a stall says what it saw: the answers since `from` by status, the requests still unanswered
    // and the IAM's own readiness view (a client that never followed the new primary, or a request
    // that hangs, read differently)
    const answeredAfter = async (from: number, what: string, ok?: boolean) => {
      try {
        await waitUntil(() => answers.filter((a) => a.sentAt >= from && (ok === undefined || a.status < 300)).length >= ANSWERS_PER_PHASE, what, 30_000)
      } catch (error) {
        const now = performance.now()
        const counts = new Map<string, number>()
        for (const a of answers.filter((a) => a.sentAt >= from)) counts.set(`${a.what} ${a.status}`, (counts.get(`${a.what} ${a.status}`) ?? 0) + 1)
        const seen = [...counts].map(([k, n]) => `${k} x${n}`)
        const hanging = [...inFlight].map((r) => `${r.what} for ${(now - r.sentAt).toFixed(0)} ms`)
        const ready = await fetch(`${iam.url}/health/ready`, { signal: AbortSignal.timeout(5000) }).then(async (r) => `${r.status} ${await r.text()}`, (e: Error) => e.message)
        throw new Error(`${(error as Error).message}; since then: ${seen.join(', ') || 'no answers'}; unanswered: ${hanging.join(', ') || 'none'}; readiness: ${ready}`, { cause: error })
      }
    }

    try {
      await answeredAfter(0, 'answers before the kill')
      const oldPrimary = set.primary.port
      const killedAt = performance.now()
      set.primary.kill()
      await waitUntil(async () => (await currentPrimaryPort(set)) !== oldPrimary, 'the sentinels to promote the replica', BACK_WITHIN_MS)
      const promotedAt = performance.now()
      await answeredAfter(promotedAt, 'answers after the promotion', true)
      running = false
      await workers

      const after = answers.filter((a) => a.sentAt >= killedAt)
      const firstBack = Math.min(...answers.filter((a) => a.sentAt >= killedAt && a.status < 300 && answers.some((b) => b.sentAt >= killedAt && b.sentAt < a.sentAt && b.status === 503)).map((a) => a.sentAt))
      const unavailable = after.filter((a) => a.status === 503)
      console.log(
        `[sentinel drill] promotion ${(promotedAt - killedAt).toFixed(0)} ms after the kill; ${unavailable.length} answers 503 (max ${Math.max(0, ...unavailable.map((a) => a.ms)).toFixed(0)} ms); ` +
          `first success after the outage ${Number.isFinite(firstBack) ? `${(firstBack - killedAt).toFixed(0)} ms after the kill` : '(no outage seen)'}; ${answers.length} requests in all`,
      )
      expect(answers.filter((a) => !(a.status < 300 || a.status === 503)).map((a) => `${a.what} ${a.status}`)).toEqual([])
      expect(unavailable.filter((a) => a.ms >= ANSWER_WITHIN_MS || !/^\d+$/.test(a.retryAfter ?? ''))).toEqual([])
      // service came back on its own: successes of every kind after the promotion
      for (const what of ['sign-in', 'verify']) expect(answers.some((a) => a.what === what && a.sentAt >= promotedAt && a.status < 300)).toBe(true)
    } finally {
      running = false
      await workers
    }

    // sessions made before the fail-over still work; the failed-login counts the replica had are all there
    expect((await refresh(iam, signedIn)).status).toBe(201)
    const countsAfter = await windowCounts(await currentPrimaryPort(set))
    const lowered = [...countsBefore].filter(([key, count]) => (countsAfter.get(key) ?? 0) < count)
    expect(lowered).toEqual([])
  }, 120_000)
})
