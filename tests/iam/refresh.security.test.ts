import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, authedGet, newDevice, PROXY_CONFIG, refresh, setCookieValue, signupUser } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { untilMailTo } from '../helpers/outbox'
import { moved, scrapeMetrics } from '../helpers/prometheus'

let iam: IamServer
// long enough for two sequential requests on a loaded machine; the test moves the IAM clock past it
const GRACE_MS = 4000
beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      jwt: { refresh_tokens: { reuseGraceMs: GRACE_MS } },
      rate_limiters: { refresh: { points: 1000, duration: 60, blockDuration: 60 } },
      anomalies: { velocity: { count: 50 } },
    },
    env: CLOCK_ENV,
  })
}, 240_000)
afterAll(() => iam?.stop())

describe('refresh token rotation (security)', () => {
  it('rejects a reused refresh token and revokes its family', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.30' } })
    const next = await applyRefresh(s, await refresh(iam, s))
    await advanceClock(iam, GRACE_MS + 1)
    const reuse = await refresh(iam, s)
    expect(reuse.status).toBe(401)
    expect(await reuse.json()).toEqual({ ok: false, date: expect.any(String), error: 'Re-login is required', code: 'refresh_token_reused', reason: 'REFRESH_TOKEN_REUSED' })
    // the whole family is dead, including the legitimate newest token
    const after = await refresh(iam, next)
    expect(after.status).toBe(401)
    // and says why, so the owner's page can tell them
    expect(await after.json()).toMatchObject({ reason: 'SESSION_REVOKED', revokedFor: 'refresh_token_reused' })
    const access = await authedGet(iam, next)
    expect(access.status).toBe(401)
    expect(await access.json()).toMatchObject({ reason: 'SESSION_REVOKED', revokedFor: 'refresh_token_reused' })
  })

  it('gives a duplicate refresh from the same device within the grace window the same pair', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.31' } })
    const first = await refresh(iam, s)
    const second = await refresh(iam, s)
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    expect(setCookieValue(second, 'session')).toBe(setCookieValue(first, 'session'))
    expect(((await second.json()) as Json).accessToken).toBe(((await first.json()) as Json).accessToken)
  })

  it('treats the old token from another device within the grace window as reuse', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.32' } })
    const next = await applyRefresh(s, await refresh(iam, s))
    const thief = await newDevice(iam, { ip: '198.51.100.99' })
    const stolen = await refresh(iam, s, { canary: thief.canary, ip: thief.ip })
    expect(stolen.status).toBe(401)
    expect(((await stolen.json()) as Json).reason).toBe('REFRESH_TOKEN_REUSED')
    expect((await refresh(iam, next)).status).toBe(401)
  })

  it('refuses the stored SHA-256 hash of a token sent as the cookie', async () => {
    const { createHash } = await import('node:crypto')
    const s = await signupUser(iam, { client: { ip: '203.0.113.34' } })
    const hash = createHash('sha256').update(s.refreshToken).digest('hex')
    const res = await refresh(iam, { ...s, refreshToken: hash })
    expect(res.status).toBe(401)
    expect(((await res.json()) as Json).reason).toBe('SESSION_NOT_FOUND')
    const protectedRes = await authedGet(iam, { ...s, refreshToken: hash })
    expect(protectedRes.status).toBe(401)
  })

  it('writes the device row, and last_seen inside the rotation statement, once the IAM clock moved past a minute, still without a transaction', async () => {
    let s = await signupUser(iam, { client: { ip: '203.0.113.35' } })
    // the signup's verification mail goes out after its answer, in a transaction of its own
    await untilMailTo(iam.dataDir, s.email)
    s = await applyRefresh(s, await refresh(iam, s))
    await advanceClock(iam, 61_000)
    const before = await scrapeMetrics(iam.url)
    const res = await refresh(iam, s)
    expect(res.status).toBe(201)
    const after = await scrapeMetrics(iam.url)
    const statements = (kind: string) => moved(before, after, 'iam_db_statements_total', { kind })
    expect(statements('transaction')).toBe(0)
    // the guard's read, and the signing keys: each process re-reads them once a minute
    expect(statements('read')).toBe(2)
    // the device row, and the rotation itself, which also moves the family's last_seen
    expect(statements('write')).toBe(2)
    expect((await refresh(iam, await applyRefresh(s, res))).status).toBe(201)
  })

  it('a rotation that finds last_seen due moves it: a session used again within anomalies.idleMs of that rotation is not idle', async () => {
    const idleMs = 7 * 24 * 60 * 60_000 // the default anomalies.idleMs
    let s = await signupUser(iam, { client: { ip: '203.0.113.36' } })
    await untilMailTo(iam.dataDir, s.email)
    await advanceClock(iam, 61_000)
    // last_seen is due (older than a minute): this rotation must move it to now
    s = await applyRefresh(s, await refresh(iam, s))
    // idle for less than idleMs since that rotation, for more than idleMs since the sign-in
    await advanceClock(iam, idleMs - 30_000)
    const res = await refresh(iam, s)
    expect(res.status).toBe(201)
  })
})
