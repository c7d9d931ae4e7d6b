/**
 * Abuse of the account-security routes: another user's session id, password guessing
 * through a stolen session, and the audit view across users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'

const LOGIN_POINTS = 3
let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      anomalies: { velocity: { count: 50 } },
      jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 50 } },
      // per IP + email: LOGIN_POINTS attempts; the account's delay starts after as many (its free
      // failures and the attempt after them) and lasts a minute, so a refused attempt is refused
      // however slow the machine is
      rate_limiters: {
        login: { points: LOGIN_POINTS, duration: 600, blockDuration: 600 },
        loginAccountDelay: { freeAttempts: LOGIN_POINTS - 1, baseDelayMs: 60_000, maxDelayMs: 60_000, windowMs: 600_000 },
      },
    },
  })
}, 240_000)
afterAll(() => iam?.stop())

let ipSeq = 0
const freshIp = () => `198.18.${(++ipSeq >> 8) & 255}.${ipSeq & 255}`
const freshUser = () => signupUser(iam, { client: { ip: freshIp() } })

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

async function currentSessionId(s: Session): Promise<string> {
  const body = (await (await authed(s, 'GET', '/auth/sessions')).json()) as { data: { sessions: Json[] } }
  return body.data.sessions.find((x) => x.current)!.id as string
}

const WRONG = 'certainly not the password'

describe('session ids of another user', () => {
  it('answers 404 with the body of an unknown id and leaves the other user’s session alive', async () => {
    const victim = await freshUser()
    const attacker = await freshUser()
    const foreign = await authed(attacker, 'POST', '/auth/sessions/revoke', { id: await currentSessionId(victim) })
    const unknown = await authed(attacker, 'POST', '/auth/sessions/revoke', { id: crypto.randomUUID() })
    expect(foreign.status).toBe(404)
    expect(unknown.status).toBe(404)
    const strip = (b: Json) => ({ ...b, date: 'x' })
    expect(strip((await foreign.json()) as Json)).toEqual(strip((await unknown.json()) as Json))
    expect((await authedGet(iam, victim)).status).toBe(200)
  })

  it('revoke-others never touches another user’s sessions', async () => {
    const victim = await freshUser()
    const attacker = await freshUser()
    expect(await (await authed(attacker, 'POST', '/auth/sessions/revoke-others', {})).json()).toMatchObject({ data: { revoked: 0 } })
    expect((await authedGet(iam, victim)).status).toBe(200)
  })
})

describe('password guessing through a session', () => {
  it('counts a wrong current password toward the login limiter of that address and IP', async () => {
    const user = await freshUser()
    for (let i = 0; i < LOGIN_POINTS; i++) {
      expect((await authed(user, 'POST', '/auth/change-password', { currentPassword: WRONG, password: 'another good passphrase', confirmedPassword: 'another good passphrase' })).status).toBe(401)
    }
    // the right password, from the same address: the budget is spent
    const login = await call(iam, 'POST', '/login', { client: user, body: { email: user.email, password: user.password } })
    expect(login.status).toBe(429)
    expect(login.headers.get('retry-after')).toMatch(/^\d+$/)
    // and the change route itself is throttled too, even with the right password
    const right = await authed(user, 'POST', '/auth/change-password', { currentPassword: user.password, password: 'another good passphrase', confirmedPassword: 'another good passphrase' })
    expect(right.status).toBe(429)
  })

  it('counts a wrong current password toward the account’s progressive delay, from any address', async () => {
    const user = await freshUser()
    for (let i = 0; i < LOGIN_POINTS; i++) {
      expect((await authed(user, 'POST', '/auth/change-password', { currentPassword: WRONG, password: 'another good passphrase', confirmedPassword: 'another good passphrase' })).status).toBe(401)
    }
    const elsewhere = await newDevice(iam, { ip: freshIp() })
    const login = await call(iam, 'POST', '/login', { client: elsewhere, body: { email: user.email, password: user.password } })
    expect(login.status).toBe(429)
  })
})

describe('the audit view across users', () => {
  it('never lists another user’s events, whatever the cursor', async () => {
    const a = await freshUser()
    const b = await freshUser()
    await loginUser(iam, a.email, a.password, a)
    await loginUser(iam, b.email, b.password, b)
    expect((await authed(b, 'POST', '/auth/sessions/revoke-others', {})).status).toBe(200)
    const bBody = (await (await authed(b, 'GET', '/auth/security-events?limit=100')).json()) as { data: { events: Json[] } }
    const bIds = new Set(bBody.data.events.map((e) => e.id))
    expect(bIds.size).toBeGreaterThan(0)
    // a cursor placed after B's newest event still only pages through A's own events
    const after = `${Date.now() + 60_000}.2147483647`
    for (const path of ['/auth/security-events?limit=100', `/auth/security-events?limit=100&before=${after}`]) {
      const res = await authed(a, 'GET', path)
      expect(res.status).toBe(200)
      const text = await res.text()
      const events = (JSON.parse(text) as { data: { events: Json[] } }).data.events
      expect(events.length).toBeGreaterThan(0)
      expect(events.some((e) => bIds.has(e.id))).toBe(false)
      expect(text).not.toContain(b.ip)
    }
  })
})
