/**
 * The cost of full authentication (see docs/performance.md), counted through the front door: every statement the
 * IAM sends is in iam_db_statements_total{kind}, so N signed-in requests may be compared with N.
 * A count, not a timing. Also: saving the writes must not delay a revocation, on this instance or
 * (PostgreSQL + Redis) on another one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { untilMailTo } from '../helpers/outbox'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import { skippedWithout, titled } from '../helpers/skip-notes'

const CONFIG = {
  ...PROXY_CONFIG,
  anomalies: { velocity: { count: 50 } },
  jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 50 } },
  rate_limiters: { login: { points: 100, duration: 60, blockDuration: 60 } },
}
const STATEMENTS = 'iam_db_statements_total'
const N = 20

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: CONFIG, env: CLOCK_ENV })
}, 240_000)
afterAll(() => iam?.stop())

/** Statements by kind that `run` made the IAM send. */
async function countStatements(server: IamServer, run: () => Promise<void>): Promise<{ read: number; write: number; transaction: number }> {
  const before = await scrapeMetrics(server.url)
  await run()
  const after = await scrapeMetrics(server.url)
  const of = (kind: string) => moved(before, after, STATEMENTS, { kind })
  return { read: of('read'), write: of('write'), transaction: of('transaction') }
}

async function getSecretData(s: Session, times: number, server = iam): Promise<void> {
  for (let i = 0; i < times; i++) expect((await authedGet(server, s)).status).toBe(200)
}

const authed = (s: Session, method: string, path: string, body?: unknown, server = iam) =>
  call(server, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

/** lastSeenAt of the caller's own session in GET /auth/sessions. */
async function lastSeenOf(s: Session): Promise<string> {
  const res = await authed(s, 'GET', '/auth/sessions')
  expect(res.status).toBe(200)
  const body = (await res.json()) as { data: { sessions: Json[] } }
  const current = body.data.sessions.find((x) => x.current)
  return current!.lastSeenAt as string
}

describe('full authentication cost (GET /secret/data)', () => {
  it('costs at most one database statement and no write per steady-state request', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.70' } })
    await untilMailTo(iam.dataDir, s.email) // the signup's verification mail writes after its response
    await getSecretData(s, 2) // the first request after signup may refresh the device row
    const counted = await countStatements(iam, () => getSecretData(s, N))
    expect(counted.write).toBe(0)
    expect(counted.transaction).toBe(0)
    // exactly one read each: also on PostgreSQL, where the read goes past Kysely (fast/direct.ts)
    expect(counted.read).toBe(N)
  })

  it('writes last_seen again once the IAM clock moved past a minute, then goes back to no writes', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.71' } })
    await untilMailTo(iam.dataDir, s.email)
    await getSecretData(s, 2)
    const seenBefore = await lastSeenOf(s)
    await advanceClock(iam, 61_000)
    const due = await countStatements(iam, () => getSecretData(s, 1))
    // the session's last_seen and the device row, each once
    expect(due.write).toBeGreaterThanOrEqual(1)
    expect(Date.parse(await lastSeenOf(s))).toBeGreaterThan(Date.parse(seenBefore))
    const after = await countStatements(iam, () => getSecretData(s, N))
    expect(after.write).toBe(0)
    expect(after.read).toBeLessThanOrEqual(N)
  })

  it('still refuses a session logged out or revoked between two steady-state requests', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.72' } })
    const other = await loginUser(iam, s.email, s.password, await newDevice(iam, { ip: '198.51.100.73' }))
    await getSecretData(other, 3)
    expect((await authed(s, 'POST', '/auth/sessions/revoke-others', {})).status).toBe(200)
    expect((await authedGet(iam, other)).status).toBe(401)
    await getSecretData(s, 2)
    expect((await call(iam, 'POST', '/auth/logout', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken })).status).toBe(200)
    expect((await authedGet(iam, s)).status).toBe(401)
  })
})

// Two instances share state only through PostgreSQL + Redis; the embedded defaults are one process's own.
describe.skipIf(skippedWithout('postgres+redis'))(titled('steady-state authentication across instances (PostgreSQL + Redis)', 'postgres+redis'), () => {
  let second: IamServer
  beforeAll(async () => {
    second = await startIam({ config: CONFIG, share: iam.share, env: CLOCK_ENV })
  }, 240_000)
  afterAll(() => second?.stop())

  it('a session logged out on instance A fails on instance B at the next request, after B served it without writes', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.74' } })
    await getSecretData(s, 2, second)
    const warm = await countStatements(second, () => getSecretData(s, 5, second))
    expect(warm.write).toBe(0)
    expect((await call(iam, 'POST', '/auth/logout', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken })).status).toBe(200)
    expect((await authedGet(second, s)).status).toBe(401)
  })

  it('a session put on MFA by instance A answers 202 on instance B, even from its bound device', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.77' } })
    await getSecretData(s, 2, second)
    const elsewhere = await newDevice(iam, { ip: '198.51.100.77' })
    expect((await authedGet(iam, s, '/secret/data', { canary: elsewhere.canary })).status).toBe(202)
    // B's request alone passes every check: only the anomaly A cached can answer 202
    const res = await authedGet(second, s)
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ mfa: true, message: 'A login link has been sent to your email.', code: 'mfa_required' })
  })

  it('revoke-others on instance A ends the other session on instance B at the next request', async () => {
    const s = await signupUser(iam, { client: { ip: '198.51.100.75' } })
    const other = await loginUser(second, s.email, s.password, await newDevice(second, { ip: '198.51.100.76' }))
    await getSecretData(other, 3, second)
    expect((await authed(s, 'POST', '/auth/sessions/revoke-others', {})).status).toBe(200)
    expect((await authedGet(second, other)).status).toBe(401)
  })
})
