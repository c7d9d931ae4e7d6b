import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { waitForLog } from '../helpers/logs'

// Short lifetimes; the tests move the IAM's clock past them (other tests here are unaffected by it).
const IDLE_MS = 4000
const MAX_LIFE_MS = 9000
let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      anomalies: { idleMs: IDLE_MS, velocity: { count: 4 } },
      jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 3, MAX_SESSION_LIFE: MAX_LIFE_MS } },
      rate_limiters: { login: { points: 100, duration: 60, blockDuration: 60 } },
    },
    env: CLOCK_ENV,
  })
}, 240_000)
afterAll(() => iam?.stop())

const logout = (s: Session) => call(iam, 'POST', '/auth/logout', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken })

describe('session rules over time and count', () => {
  it('asks for MFA when the user has maxAllowedSessionsPerUser live sessions', async () => {
    const first = await signupUser(iam, { client: { ip: '203.0.113.50' } })
    await loginUser(iam, first.email, first.password, first)
    const third = await loginUser(iam, first.email, first.password, first)
    const res = await authedGet(iam, third)
    expect(res.status).toBe(202)
    await waitForLog(iam, (l) => l.includes('TOO_MANY_SESSIONS'))
  })

  it('revokes the session and requires re-login when sessions are opened too fast (velocity)', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.51' } })
    // five sessions in the window, but only two live (the others logged out): velocity, not count, decides
    const extra: Session[] = []
    for (let i = 0; i < 4; i++) extra.push(await loginUser(iam, s.email, s.password, s))
    for (const x of [s, extra[0]!, extra[1]!]) expect((await logout(x)).status).toBe(200)
    const last = extra[3]!
    const res = await authedGet(iam, last)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Re-login is required', reason: 'SESSION_VELOCITY' })
    expect(((await (await refresh(iam, last)).json()) as Json).reason).toBe('SESSION_REVOKED')
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
    const s = await signupUser(iam, { client: device })
    await advanceClock(iam, MAX_LIFE_MS + 1)
    const res = await refresh(iam, s)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Re-login is required', reason: 'SESSION_EXPIRED' })
  })
})
