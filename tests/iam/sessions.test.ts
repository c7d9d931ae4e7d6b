import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, authedGet, call, loginUser, newDevice, PROXY_CONFIG, refresh, setCookieValue, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { waitForLog } from '../helpers/logs'

// Short lifetimes; the tests move the IAM's clock past them (other tests here are unaffected by it).
const IDLE_MS = 4000
const MAX_LIFE_MS = 9000
// a refresh token without "remember me" lives this long, so a rotation visibly moves its family's expiry
const REFRESH_MS = 5000
let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      anomalies: { idleMs: IDLE_MS, velocity: { count: 4 } },
      jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 3, MAX_SESSION_LIFE: MAX_LIFE_MS, refresh_ttl: REFRESH_MS } },
      rate_limiters: { login: { points: 100, duration: 60, blockDuration: 60 } },
    },
    env: CLOCK_ENV,
  })
}, 240_000)
afterAll(() => iam?.stop())

const logout = (s: Session) => call(iam, 'POST', '/auth/logout', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken })

describe('session rules over time and count', () => {
  it('asks for MFA when a session\'s device makes maxAllowedSessionsPerUser live devices, and only that session', async () => {
    const first = await signupUser(iam, { client: { ip: '203.0.113.50' } })
    const second = await loginUser(iam, first.email, first.password, await newDevice(iam, { ip: '203.0.113.50' }))
    const third = await loginUser(iam, first.email, first.password, await newDevice(iam, { ip: '203.0.113.50' }))
    const res = await authedGet(iam, third)
    expect(res.status).toBe(202)
    await waitForLog(iam, (l) => l.includes('TOO_MANY_SESSIONS'))
    // the sessions opened before it are not asked because of a later one
    for (const earlier of [first, second]) expect((await authedGet(iam, earlier)).status).toBe(200)
  })

  it('does not count sessions on one device more than once: signing in again and again on it is never asked', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.54' } })
    let last = s
    for (let i = 0; i < 5; i++) last = await loginUser(iam, s.email, s.password, s)
    expect((await authedGet(iam, last)).status).toBe(200)
    expect((await authedGet(iam, s)).status).toBe(200)
  })

  it('asks for MFA, and keeps the session, when more than velocity.count devices open sessions within the window', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.51' } })
    // five devices in the window, but only two live (the others logged out): velocity, not count, decides
    const extra: Session[] = []
    for (let i = 0; i < 4; i++) extra.push(await loginUser(iam, s.email, s.password, await newDevice(iam, { ip: '203.0.113.51' })))
    for (const x of [s, extra[0]!, extra[1]!]) expect((await logout(x)).status).toBe(200)
    const last = extra[3]!
    const res = await authedGet(iam, last)
    expect(res.status).toBe(202)
    await waitForLog(iam, (l) => l.includes('SESSION_VELOCITY'))
    // not revoked: the refresh waits for the same code instead of answering re-login
    expect((await refresh(iam, last)).status).toBe(202)
  })

  it('asks for MFA when the device was idle longer than anomalies.idleMs', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.52' } })
    await advanceClock(iam, IDLE_MS + 1)
    const res = await authedGet(iam, s)
    expect(res.status).toBe(202)
    await waitForLog(iam, (l) => l.includes('IDLE_DEVICE'))
  })

  it('refuses a refresh once MAX_SESSION_LIFE has passed since the first login', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.53' })
    // remembered: its refresh token would outlive MAX_SESSION_LIFE
    const s = await signupUser(iam, { client: device, remember: true })
    await advanceClock(iam, MAX_LIFE_MS + 1)
    const res = await refresh(iam, s)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Re-login is required', code: 'session_expired', reason: 'SESSION_EXPIRED' })
  })
})

/**
 * The cap of live sessions (check 5, maxAllowedSessionsPerUser 3) with one family of the user in a
 * given state: the user's third session answers 202 (TOO_MANY_SESSIONS) when that family still
 * counts as live, 200 when it does not. A family is live while it is not revoked and its active
 * refresh token has not expired, whatever wrote it last (sign-in, rotation, re-issue, revocation).
 */
describe('the live-session count', () => {
  let ipSeq = 60
  /**
   * `put` brings the user's first session into the state (and answers the new password when it
   * changed it); the answer of the user's third session.
   */
  async function thirdSessionAnswer(put: (first: Session) => Promise<string | void>): Promise<number> {
    const first = await signupUser(iam, { client: { ip: `203.0.113.${++ipSeq}` } })
    const password = (await put(first)) ?? first.password
    // devices, not sessions, count: the second and third sessions each on a device of their own
    await loginUser(iam, first.email, password, await newDevice(iam, { ip: `203.0.113.${ipSeq}` }))
    const third = await loginUser(iam, first.email, password, await newDevice(iam, { ip: `203.0.113.${ipSeq}` }))
    return (await authedGet(iam, third)).status
  }

  it('counts a family whose token is active and unexpired', async () => {
    expect(await thirdSessionAnswer(async () => {})).toBe(202)
  })

  it('counts a rotated family once, through its successor, while its spent token is still within the grace window', async () => {
    expect(await thirdSessionAnswer(async (first) => {
      const res = await refresh(iam, first)
      expect(res.status).toBe(201)
      // the same device again within the window: the same pair, no new token
      expect((await refresh(iam, first)).status).toBe(201)
    })).toBe(202)
  })

  it('counts a rotated family past the first token\'s expiry: the rotation moved the family\'s expiry to its successor\'s', async () => {
    expect(await thirdSessionAnswer(async (first) => {
      await advanceClock(iam, REFRESH_MS - 2000)
      await applyRefresh(first, await refresh(iam, first))
      await advanceClock(iam, 3000)
    })).toBe(202)
  })

  it('counts a family re-issued by a password change past its old token\'s expiry', async () => {
    expect(await thirdSessionAnswer(async (first) => {
      await advanceClock(iam, REFRESH_MS - 2000)
      const password = 'a brand new passphrase 2026'
      const body = { currentPassword: first.password, password, confirmedPassword: password }
      const res = await call(iam, 'POST', '/auth/change-password', { client: first, cookies: { session: first.refreshToken }, bearer: first.accessToken, body })
      expect(res.status).toBe(200)
      expect(setCookieValue(res, 'session')).not.toBe(first.refreshToken)
      await advanceClock(iam, 3000)
      return password
    })).toBe(202)
  })

  it('does not count a family whose token expired', async () => {
    expect(await thirdSessionAnswer(async () => {
      await advanceClock(iam, REFRESH_MS + 1)
    })).toBe(200)
  })

  it('does not count a logged-out family', async () => {
    expect(await thirdSessionAnswer(async (first) => {
      expect((await logout(first)).status).toBe(200)
    })).toBe(200)
  })

  it('does not count a family revoked by reuse detection', async () => {
    expect(await thirdSessionAnswer(async (first) => {
      await applyRefresh(first, await refresh(iam, first))
      const thief = await newDevice(iam, { ip: '198.51.100.77' })
      const stolen = await refresh(iam, first, { canary: thief.canary, ip: thief.ip })
      expect(((await stolen.json()) as Json).reason).toBe('REFRESH_TOKEN_REUSED')
    })).toBe(200)
  })
})
