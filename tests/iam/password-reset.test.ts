import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, loginUser, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { linkQueryOf, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'

const NEW_PASSWORD = 'a brand new passphrase 2026'
// strong by its score: only the breach check refuses it
const BREACHED = 'breached passphrase from a dump'

let iam: IamServer
let smtp: SmtpCapture
let range: Server
beforeAll(async () => {
  smtp = await startSmtp()
  // a local k-anonymity range API that knows one breached password
  const sha1 = createHash('sha1').update(BREACHED).digest('hex').toUpperCase()
  range = createServer((req, res) => {
    res.end(req.url?.endsWith(sha1.slice(0, 5)) ? `${sha1.slice(5)}:42\r\n0000000000000000000000000000000000A:0` : '')
  })
  await new Promise<void>((r) => range.listen(0, '127.0.0.1', () => r()))
  const port = (range.address() as { port: number }).port
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      email: { siteName: 'Acme' },
      // the file's submissions share one address: room for all of them under the `codes` budget
      rate_limiters: { forgotPassword: { points: 100, duration: 3600, blockDuration: 3600 }, codes: { points: 100, duration: 600, blockDuration: 900 } },
      // the range API is served by this test process: on a loaded machine twenty parallel look-ups can
      // outlast the default timeout, and a refused check is a correct 503, not what these tests are about
      password: { breachCheck: { enabled: true, rangeApiUrl: `http://127.0.0.1:${port}/range/`, failOpen: false, timeoutMs: 30_000 } },
    },
    env: { SMTP_URL: smtp.url },
  })
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
  await new Promise((r) => range?.close(r))
})

async function resetMail(user: Session): Promise<ParsedMail> {
  const before = new Set(smtp.mails)
  const res = await call(iam, 'POST', '/auth/forgot-password', { client: user, body: { email: user.email } })
  expect(res.status).toBe(200)
  return smtp.waitForMail((m) => !before.has(m) && recipients(m).includes(user.email) && /reset your password/.test(m.subject ?? ''))
}

const submit = (query: string, user: Session, password: string, confirmedPassword = password) =>
  call(iam, 'POST', `/auth/reset-password${query}`, { client: user, body: { password, confirmedPassword } })

describe('password reset', () => {
  it('previews, sets the new password, revokes every session and mails a notice', async () => {
    const user = await signupUser(iam)
    const second = await loginUser(iam, user.email, user.password, user)
    const query = linkQueryOf(await resetMail(user))
    const preview = await call(iam, 'GET', `/auth/reset-password${query}`, { client: user })
    expect(preview.status).toBe(200)
    expect(await preview.json()).toEqual({ ok: true, date: expect.any(String), data: { link: 'Password Reset', reason: 'PASSWORD_RESET' } })
    const res = await submit(query, user, NEW_PASSWORD)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, date: expect.any(String), data: { message: expect.any(String) } })
    expect((await refresh(iam, user)).status).toBe(401)
    expect((await refresh(iam, second)).status).toBe(401)
    await expect(loginUser(iam, user.email, NEW_PASSWORD, user)).resolves.toBeTruthy()
    await expect(loginUser(iam, user.email, user.password, user)).rejects.toThrow(/401/)
    const notice = await smtp.waitForMail((m) => recipients(m).includes(user.email) && /password was changed/.test(m.subject ?? ''))
    expect(notice.text).toContain('signed out')
  })

  it('answers 400 for a consumed link on GET and POST', async () => {
    const user = await signupUser(iam)
    const query = linkQueryOf(await resetMail(user))
    expect((await submit(query, user, NEW_PASSWORD)).status).toBe(200)
    const get = await call(iam, 'GET', `/auth/reset-password${query}`, { client: user })
    expect(get.status).toBe(400)
    expect(await get.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link already used', code: 'link_used' })
    expect((await submit(query, user, `${NEW_PASSWORD}!`)).status).toBe(400)
  })

  it('answers 400 for a mismatch, a short or a breached password and keeps the link usable', async () => {
    const user = await signupUser(iam)
    const query = linkQueryOf(await resetMail(user))
    const mismatch = await submit(query, user, NEW_PASSWORD, `${NEW_PASSWORD}x`)
    expect(mismatch.status).toBe(400)
    expect(((await mismatch.json()) as Json).fields).toEqual({ confirmedPassword: 'Passwords do not match' })
    expect((await submit(query, user, 'short')).status).toBe(400)
    const weak = await submit(query, user, 'password1234567')
    expect(weak.status).toBe(400)
    expect(((await weak.json()) as Json).fields).toEqual({ password: 'This password is too easy to guess: This is very like a commonly used password.' })
    const breached = await submit(query, user, BREACHED)
    expect(breached.status).toBe(400)
    expect(((await breached.json()) as Json).error).toMatch(/breach/)
    expect((await submit(query, user, NEW_PASSWORD)).status).toBe(200)
  })

  it('a newer reset link replaces the older one', async () => {
    const user = await signupUser(iam)
    const first = linkQueryOf(await resetMail(user))
    const second = linkQueryOf(await resetMail(user))
    expect((await submit(first, user, NEW_PASSWORD)).status).toBe(400)
    expect((await submit(second, user, NEW_PASSWORD)).status).toBe(200)
  })

  it('works from any device: the link binds the user, not the device', async () => {
    const user = await signupUser(iam)
    const query = linkQueryOf(await resetMail(user))
    const elsewhere = await signupUser(iam, { client: { ip: '192.0.2.77' } })
    expect((await submit(query, { ...user, ...{ ip: elsewhere.ip, canary: elsewhere.canary } }, NEW_PASSWORD)).status).toBe(200)
  })

  it('lets exactly one of 20 parallel submissions succeed', async () => {
    const user = await signupUser(iam)
    const query = linkQueryOf(await resetMail(user))
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(query, user, `${NEW_PASSWORD} ${i}`)))
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    expect(results.filter((r) => r.status >= 500)).toHaveLength(0)
  })

  it('answers 400 for a link with missing or forged parameters', async () => {
    const user = await signupUser(iam)
    const params = new URLSearchParams(linkQueryOf(await resetMail(user)))
    expect((await call(iam, 'GET', '/auth/reset-password?token=a.b.c', { client: user })).status).toBe(400)
    const forged = new URLSearchParams(params)
    forged.set('random', 'A'.repeat(43))
    const res = await call(iam, 'GET', `/auth/reset-password?${forged}`, { client: user })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid link', code: 'link_invalid' })
    const asMfa = new URLSearchParams(params)
    asMfa.set('reason', 'MAGIC_LINK_MFA_CHECKS')
    expect((await call(iam, 'GET', `/auth/verify-mfa?${params}`, { client: user })).status).toBe(400)
    expect((await call(iam, 'GET', `/auth/reset-password?${asMfa}`, { client: user })).status).toBe(400)
  })
})
