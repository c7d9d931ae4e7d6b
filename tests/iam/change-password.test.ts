/**
 * POST /auth/change-password: the current password re-proved, the new one through the
 * policy, the breach check and the confirmation; every other session ends, this one gets a new
 * token pair, a notice is mailed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, refresh, setCookieValue, signupUser, uniqueEmail, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { expectDocumented } from './documented'
import { startRangeServer, type RangeServer } from '../helpers/range-server'
import { recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const NEW_PASSWORD = 'a brand new passphrase 2026'
const BREACHED = 'breached passphrase from a dump'

let iam: IamServer
let smtp: SmtpCapture
let range: RangeServer
beforeAll(async () => {
  ;[smtp, range] = await Promise.all([startSmtp(), startRangeServer([BREACHED])])
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      providers: [{ name: 'demo', useStandardProfile: true }],
      password: { breachCheck: { enabled: true, rangeApiUrl: range.url, failOpen: false, timeoutMs: 2000 } },
      anomalies: { velocity: { count: 50 } },
      jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 50 } },
    },
    env: { SMTP_URL: smtp.url },
  })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
  await range?.stop()
})

let ipSeq = 0
/** A user on a device of its own address (the login limiters key on IP + email). */
const freshUser = () => signupUser(iam, { client: { ip: `198.51.100.${++ipSeq}` } })

const change = (s: Session, body: Json) =>
  call(iam, 'POST', '/auth/change-password', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

const bodyFor = (s: Session, password = NEW_PASSWORD): Json => ({ currentPassword: s.password, password, confirmedPassword: password })

describe('POST /auth/change-password', () => {
  it('changes the password, answers like login with a new pair, ends every other session and keeps this one', async () => {
    const user = await freshUser()
    const other = await loginUser(iam, user.email, user.password, await newDevice(iam, { ip: '203.0.113.90' }))
    const res = await change(user, bodyFor(user))
    const body = (await res.json()) as Json
    expect(res.status).toBe(200)
    expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
    expectDocumented('changePassword', 200, body)
    const renewed: Session = { ...user, password: NEW_PASSWORD, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
    expect(renewed.refreshToken).not.toBe(user.refreshToken)
    expect((await authedGet(iam, renewed)).status).toBe(200)
    // the old refresh token of this session is retired, the other session is gone
    expect((await authedGet(iam, user)).status).toBe(401)
    expect((await authedGet(iam, other)).status).toBe(401)
    expect((await refresh(iam, other)).status).toBe(401)
    await expect(loginUser(iam, user.email, NEW_PASSWORD, user)).resolves.toBeTruthy()
    await expect(loginUser(iam, user.email, user.password, user)).rejects.toThrow(/401/)
  })

  it('mails a notice naming when and from where, with no password in it', async () => {
    const user = await freshUser()
    expect((await change(user, bodyFor(user))).status).toBe(200)
    const notice = await smtp.waitForMail((m) => recipients(m).includes(user.email) && /password was changed/.test(m.subject ?? ''))
    expect(notice.text).toContain(user.ip)
    expect(notice.text).toContain('Every other session was signed out.')
    for (const secret of [NEW_PASSWORD, user.password]) {
      expect(notice.text).not.toContain(secret)
      expect(notice.html || '').not.toContain(secret)
    }
  })

  it('answers 401 for a wrong current password and changes nothing', async () => {
    const user = await freshUser()
    const res = await change(user, { ...bodyFor(user), currentPassword: 'not my password at all' })
    expect(res.status).toBe(401)
    const body = await res.json()
    expectDocumented('changePassword', 401, body)
    expect(body).toEqual({
      ok: false,
      date: expect.any(String),
      error: 'The current password is incorrect', code: 'wrong_password',
      fields: { currentPassword: 'The current password is incorrect' },
    })
    expect((await authedGet(iam, user)).status).toBe(200)
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })

  it('answers 400 when the confirmation differs, with the same field error as signup and reset', async () => {
    const user = await freshUser()
    const res = await change(user, { ...bodyFor(user), confirmedPassword: `${NEW_PASSWORD}!` })
    expect(res.status).toBe(400)
    const body = await res.json()
    expectDocumented('changePassword', 400, body)
    expect(body).toEqual({ ok: false, date: expect.any(String), error: 'Passwords do not match', code: 'passwords_mismatch', fields: { confirmedPassword: 'Passwords do not match' } })
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })

  it('answers 400 for a password the policy refuses (too short, the email address)', async () => {
    const user = await freshUser()
    for (const password of ['short pw', user.email]) {
      const res = await change(user, bodyFor(user, password))
      expect(res.status).toBe(400)
      expect(((await res.json()) as Json).fields).toEqual({ password: expect.stringMatching(/at least 12 characters|email address/) })
    }
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })

  it('answers 400 at the password field for a password below the strength score, and keeps the old one', async () => {
    const user = await freshUser()
    const res = await change(user, bodyFor(user, 'qwertyuiop12'))
    expect(res.status).toBe(400)
    const body = (await res.json()) as Json
    expectDocumented('changePassword', 400, body)
    expect(body.fields).toEqual({ password: expect.stringMatching(/^This password is too easy to guess: /) })
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })

  it('answers 400 for a breached password', async () => {
    const user = await freshUser()
    const res = await change(user, bodyFor(user, BREACHED))
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toEqual({ password: expect.stringMatching(/data breach/) })
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })

  it('answers 400 with the fields for a missing or malformed body', async () => {
    const user = await freshUser()
    const res = await change(user, { password: NEW_PASSWORD })
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toMatchObject({ currentPassword: expect.any(String), confirmedPassword: expect.any(String) })
    expect((await change(user, { ...bodyFor(user), currentPassword: 42 })).status).toBe(400)
  })

  it('answers 400 for an account without a password (provider sign-in only)', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.91' })
    const profile = { sub: `sub-${Date.now()}`, email: uniqueEmail('oidc'), email_verified: true, name: 'Ada' }
    const res = await call(iam, 'POST', '/auth/OAuth/demo', { client: device, body: profile })
    expect(res.status).toBe(201)
    const session: Session = { ...device, email: profile.email, password: '', accessToken: ((await res.json()) as Json).accessToken as string, refreshToken: setCookieValue(res, 'session')! }
    const refused = await change(session, { currentPassword: 'anything at all here', password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as Json).error).toMatch(/no password/)
  })

  it('requires full authentication (401 without the Bearer token)', async () => {
    const user = await freshUser()
    const res = await call(iam, 'POST', '/auth/change-password', { client: user, cookies: { session: user.refreshToken }, body: bodyFor(user) })
    expect(res.status).toBe(401)
  })
})

describe('parallel password changes', () => {
  it('lets exactly one of several parallel changes win; only its password and its session remain', async () => {
    const user = await freshUser()
    const sessions = [user, ...(await Promise.all([1, 2, 3].map(() => loginUser(iam, user.email, user.password, user))))]
    const passwords = sessions.map((_, i) => `parallel passphrase number ${i}`)
    const results = await Promise.all(sessions.map((s, i) => change(s, bodyFor(s, passwords[i]))))
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    // the losers were refused: changed meanwhile (409) or their session already ended (401)
    for (const status of statuses.filter((s) => s !== 200)) expect([401, 409]).toContain(status)
    const winner = statuses.indexOf(200)
    const won = results[winner]!
    const renewed: Session = { ...sessions[winner]!, accessToken: ((await won.json()) as Json).accessToken as string, refreshToken: setCookieValue(won, 'session')! }
    expect((await authedGet(iam, renewed)).status).toBe(200)
    for (const [i, s] of sessions.entries()) if (i !== winner) expect((await authedGet(iam, s)).status).toBe(401)
    const device = await newDevice(iam, { ip: '203.0.113.92' })
    await expect(loginUser(iam, user.email, passwords[winner]!, device)).resolves.toBeTruthy()
    await expect(loginUser(iam, user.email, passwords[(winner + 1) % passwords.length]!, device)).rejects.toThrow(/401/)
  })
})
