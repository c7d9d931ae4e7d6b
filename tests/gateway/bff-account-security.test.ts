/**
 * The account-security BFF routes against the real IAM: sessions listed and ended, password change,
 * the audit view; CSRF enforced on every unsafe one, tokens never in a body.
 */
// store-independent: the gateway keeps no store of its own; the IAM routes it relays run on both stores in tests/iam/account-sessions.test.ts and change-password.test.ts
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSmtp, type SmtpCapture } from '../helpers/smtp'
import { browserLike, freshEmail, PASSWORD, setupStack } from './bff-harness'

let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(async () => {
  await smtp?.stop()
})
const stack = await setupStack(() => ({
  email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } },
  anomalies: { velocity: { count: 50 } },
  jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 50 } },
  rate_limiters: {
    signup: { points: 100, duration: 60, blockDuration: 1 },
    login: { points: 100, duration: 60, blockDuration: 1 },
  },
}))

/** Two browsers signed in to one account. */
async function twoBrowsers() {
  const email = freshEmail()
  const a = browserLike(stack.gateway.url)
  const signup = await a.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Test User', termsConsent: 'on' } })
  expect(signup.status, signup.text).toBe(201)
  const b = browserLike(stack.gateway.url, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0')
  const login = await b.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })
  expect(login.status, login.text).toBe(200)
  return { email, a, b }
}

type Listed = { id: string; current: boolean; browser: string | null }
const listed = async (browser: ReturnType<typeof browserLike>) => {
  const res = await browser.call('/api/auth/sessions')
  expect(res.status, res.text).toBe(200)
  return (res.json.data as { sessions: Listed[] }).sessions
}

describe('sessions through the BFF', () => {
  it('lists both sessions with this one marked, and ending the other one signs that browser out', async () => {
    const { a, b } = await twoBrowsers()
    const sessions = await listed(a)
    expect(sessions.map((s) => [s.current, s.browser])).toEqual([[false, 'Firefox'], [true, 'Chrome']])
    const res = await a.call('/api/auth/sessions/revoke', { method: 'POST', body: { id: sessions[0]!.id } })
    expect(res.status, res.text).toBe(200)
    // `why`: the page that browser lands on says it was signed out from another device
    expect((await b.call('/api/auth/session')).json).toEqual({ authenticated: false, ended: true, why: 'elsewhere' })
    expect((await a.call('/api/auth/session')).json).toMatchObject({ authenticated: true })
  })

  it('"sign out everywhere else" ends the other browser and keeps this one', async () => {
    const { a, b } = await twoBrowsers()
    const res = await a.call('/api/auth/sessions/revoke-others', { method: 'POST', body: {} })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({ ok: true, data: { revoked: 1 } })
    expect((await b.call('/api/auth/sessions')).status).toBe(401)
    expect(await listed(a)).toHaveLength(1)
  })

  it('refuses the unsafe routes without the CSRF header, or from another site, and changes nothing', async () => {
    const { a, b } = await twoBrowsers()
    const [other] = (await listed(a)).filter((s) => !s.current)
    const attempts = [
      ['/api/auth/sessions/revoke-others', {}],
      ['/api/auth/sessions/revoke', { id: other!.id }],
      ['/api/auth/change-password', { currentPassword: PASSWORD, password: 'a csrf planted password', confirmedPassword: 'a csrf planted password' }],
      ['/api/auth/set-password', { password: 'a csrf planted password', confirmedPassword: 'a csrf planted password' }],
      ['/api/auth/linked-accounts/unlink', { provider: 'demo' }],
    ] as const
    for (const [path, body] of attempts) {
      expect((await a.call(path, { method: 'POST', body, headers: { 'x-csrf': '' } })).status).toBe(403)
      expect((await a.call(path, { method: 'POST', body, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).status).toBe(403)
    }
    expect((await b.call('/api/auth/session')).json).toMatchObject({ authenticated: true })
    expect(await listed(a)).toHaveLength(2)
  })

  it('answers 400 for a malformed id before calling the IAM', async () => {
    const { a } = await twoBrowsers()
    const res = await a.call('/api/auth/sessions/revoke', { method: 'POST', body: { id: 7 } })
    expect(res.status).toBe(400)
    expect(res.json.fields).toMatchObject({ id: expect.any(String) })
  })
})

describe('password change through the BFF', () => {
  it('keeps the browser signed in on a wrong current password and shows the field error', async () => {
    const { a } = await twoBrowsers()
    const res = await a.call('/api/auth/change-password', { method: 'POST', body: { currentPassword: 'wrong wrong wrong', password: 'brand new passphrase 1', confirmedPassword: 'brand new passphrase 1' } })
    expect(res.status).toBe(401)
    expect(res.json).toMatchObject({ ok: false, fields: { currentPassword: 'The current password is incorrect' } })
    expect((await a.call('/api/auth/session')).json).toMatchObject({ authenticated: true })
  })

  it('changes the password, moves the new tokens into cookies (never the body) and signs the other browser out', async () => {
    const { email, a, b } = await twoBrowsers()
    const before = a.jar.get('session')
    const res = await a.call('/api/auth/change-password', { method: 'POST', body: { currentPassword: PASSWORD, password: 'brand new passphrase 2', confirmedPassword: 'brand new passphrase 2' } })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({ ok: true, signedIn: true })
    expect(res.text).not.toMatch(/accessToken|eyJ/)
    expect(a.jar.get('session')).not.toBe(before)
    expect((await a.call('/api/auth/session')).json).toMatchObject({ authenticated: true })
    expect((await b.call('/api/auth/session')).json).toEqual({ authenticated: false, ended: true, why: 'password' })
    const again = browserLike(stack.gateway.url)
    expect((await again.call('/api/auth/login', { method: 'POST', body: { email, password: 'brand new passphrase 2' } })).status).toBe(200)
  })
})

describe('security activity through the BFF', () => {
  it('lists the user’s own events and refuses a bad page before calling the IAM', async () => {
    const { a } = await twoBrowsers()
    const res = await a.call('/api/auth/security-events?limit=5')
    expect(res.status, res.text).toBe(200)
    const events = (res.json.data as { events: Array<{ type: string }> }).events
    expect(events[0]).toMatchObject({ type: 'login_succeeded' })
    expect((await a.call('/api/auth/security-events?limit=0')).status).toBe(400)
    expect((await a.call('/api/auth/security-events?before=nope')).status).toBe(400)
  })
})

describe('sign-in methods through the BFF', () => {
  it('tells the signed-in browser how its account signs in, and a browser without a session nothing', async () => {
    const { a } = await twoBrowsers()
    const res = await a.call('/api/auth/sign-in-methods')
    expect(res.status, res.text).toBe(200)
    expect(res.json.data).toEqual({ password: true, totp: false, passkeys: 0, providers: [], linked: [] })
    const stranger = await browserLike(stack.gateway.url).call('/api/auth/sign-in-methods')
    expect(stranger.status).toBe(401)
  })
})

describe('first password and linked accounts through the BFF', () => {
  it("relays the IAM's answers: no first password before the address is confirmed (403 verifyEmail), an unlinked provider is 404", async () => {
    const { email, a } = await twoBrowsers()
    const set = await a.call('/api/auth/set-password', { method: 'POST', body: { password: 'brand new passphrase 3', confirmedPassword: 'brand new passphrase 3' } })
    expect(set.status, set.text).toBe(403)
    expect(set.json).toMatchObject({ ok: false, verifyEmail: true })
    const unlink = await a.call('/api/auth/linked-accounts/unlink', { method: 'POST', body: { provider: 'demo' } })
    expect(unlink.status, unlink.text).toBe(404)
    expect((await a.call('/api/auth/session')).json).toMatchObject({ authenticated: true })
    const again = browserLike(stack.gateway.url)
    expect((await again.call('/api/auth/login', { method: 'POST', body: { email, password: 'brand new passphrase 3' } })).status).toBe(401)
  })

  it('answers 400 for a malformed body before calling the IAM, and 401 without a session', async () => {
    const { a } = await twoBrowsers()
    const noProvider = await a.call('/api/auth/linked-accounts/unlink', { method: 'POST', body: { provider: 7 } })
    expect(noProvider.status).toBe(400)
    expect(noProvider.json.fields).toMatchObject({ provider: expect.any(String) })
    const noPassword = await a.call('/api/auth/set-password', { method: 'POST', body: {} })
    expect(noPassword.status).toBe(400)
    expect(noPassword.json.fields).toMatchObject({ password: expect.any(String), confirmedPassword: expect.any(String) })
    // what was wrong, as a code a page says in the person's language
    expect(noPassword.json.fieldIssues).toEqual({ password: { code: 'required' }, confirmedPassword: { code: 'required' } })
    expect(noProvider.json.fieldIssues).toEqual({ provider: { code: 'invalid' } })
    const stranger = browserLike(stack.gateway.url)
    expect((await stranger.call('/api/auth/set-password', { method: 'POST', body: { password: 'x', confirmedPassword: 'x' } })).status).toBe(401)
    expect((await stranger.call('/api/auth/linked-accounts/unlink', { method: 'POST', body: { provider: 'demo' } })).status).toBe(401)
  })
})
