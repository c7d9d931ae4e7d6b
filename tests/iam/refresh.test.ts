import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, authedGet, call, newDevice, PROXY_CONFIG, refresh, setCookieValue, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import { untilMailTo } from '../helpers/outbox'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: { ...PROXY_CONFIG, rate_limiters: { refresh: { points: 30, duration: 600, blockDuration: 600 } }, anomalies: { velocity: { count: 50 } } },
  })
}, 240_000)
afterAll(() => iam?.stop())

/** `code` the general one: the three causes a page words for the person have their own (http/auth.ts sessionEndedCode) */
const relogin = (reason: string, code = 'relogin_required') => ({ ok: false, date: expect.any(String), error: 'Re-login is required', code, reason })

describe('POST /auth/user/refresh-session', () => {
  it('rotates (201): a new access token and a new refresh cookie; the new pair works', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.20' } })
    const res = await refresh(iam, s)
    expect(res.status).toBe(201)
    const body = (await res.clone().json()) as Json
    expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
    const next = await applyRefresh(s, res)
    expect(next.refreshToken).not.toBe(s.refreshToken)
    expect(next.accessToken).not.toBe(s.accessToken)
    expect((await authedGet(iam, next)).status).toBe(200)
    expect((await refresh(iam, next)).status).toBe(201)
  })

  it('20 parallel refreshes with one token from one device all get the same single new pair', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.33' } })
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(iam, s)))
    const bodies = await Promise.all(results.map((r) => r.clone().json()))
    expect(results.map((r) => r.status), JSON.stringify(bodies)).toEqual(Array(20).fill(201))
    const cookies = new Set(results.map((r) => setCookieValue(r, 'session')))
    const tokens = new Set(await Promise.all(results.map(async (r) => ((await r.json()) as Json).accessToken)))
    expect(cookies.size).toBe(1)
    expect(tokens.size).toBe(1)
    // that single member is the live one: it rotates normally
    const member = { ...s, refreshToken: [...cookies][0]!, accessToken: [...tokens][0] as string }
    expect((await refresh(iam, member)).status).toBe(201)
  })

  it('a steady-state rotation costs two statements, no transaction: the guard\'s one read and the one rotating write', async () => {
    let s = await signupUser(iam, { client: { ip: '203.0.113.34' } })
    // the signup's verification mail is issued after its answer (a transaction of its own): counted
    // from when it is in the outbox, the statements below are the rotations' alone
    await untilMailTo(iam.dataDir, s.email)
    s = await applyRefresh(s, await refresh(iam, s))
    const rotations = 5
    const before = await scrapeMetrics(iam.url)
    for (let i = 0; i < rotations; i++) s = await applyRefresh(s, await refresh(iam, s))
    const after = await scrapeMetrics(iam.url)
    const statements = (kind: string) => moved(before, after, 'iam_db_statements_total', { kind })
    expect(statements('transaction')).toBe(0)
    // the read: token, family, account, device and session counts (findAuthState); the write: spend
    // the old token and insert its successor. The device row and last_seen are not due within a minute.
    // exactly one each, also on PostgreSQL, where both go past Kysely (fast/direct.ts) and count themselves
    expect(statements('read')).toBe(rotations)
    expect(statements('write')).toBe(rotations)
    expect((await authedGet(iam, s)).status).toBe(200)
  })

  it('answers 401 Refresh token missing without the session cookie', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.21' })
    const res = await call(iam, 'POST', '/auth/user/refresh-session', { client: device })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ error: 'Refresh token missing' })
  })

  it('answers 400 for a body, a query string or a Content-Type', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.22' } })
    const withQuery = await call(iam, 'POST', '/auth/user/refresh-session?x=1', { client: s, cookies: { session: s.refreshToken } })
    expect(withQuery.status).toBe(400)
    expect(await withQuery.json()).toMatchObject({ error: 'Query string not allowed' })
    const withBody = await call(iam, 'POST', '/auth/user/refresh-session', { client: s, cookies: { session: s.refreshToken }, body: { a: 1 } })
    expect(withBody.status).toBe(400)
  })

  it('answers 401 re-login for an unknown refresh token', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.23' } })
    const res = await refresh(iam, { ...s, refreshToken: 'A'.repeat(43) })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(relogin('SESSION_NOT_FOUND'))
  })

  it('answers 202 and does not rotate when the refresh comes from another device', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.24' } })
    const other = await newDevice(iam, { ip: '203.0.113.24' })
    const res = await refresh(iam, s, { canary: other.canary })
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ mfa: true, message: 'A login link has been sent to your email.', code: 'mfa_required' })
    expect(setCookieValue(res, 'session')).toBeUndefined()
    // the anomaly is cached: the owner's own device also waits for MFA now (202 MFA pending, docs/anomalies.md)
    const again = await refresh(iam, s)
    expect(again.status).toBe(202)
  })

  it('answers 429 with Retry-After when the refresh limit of the IP is spent', async () => {
    const s = await signupUser(iam, { client: { ip: '192.0.2.77' } })
    let current: Session = s
    let last: Response | undefined
    for (let i = 0; i < 31; i++) {
      last = await refresh(iam, current)
      if (last.status === 201) current = await applyRefresh(current, last)
      else break
    }
    expect(last!.status).toBe(429)
    expect(await last!.json()).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) })
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/)
  })
})
