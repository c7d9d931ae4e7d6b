/**
 * An address is identity only once its owner proved they read it. Signup and an
 * email change mail a verification link; the old address of a change gets an undo link.
 */
import { describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, refresh, setCookieValue, signupUser, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { codeOf, linkQueryOf, recipients, type ParsedMail } from '../helpers/smtp'

const iam = sharedIam()
const smtp = sharedSmtp()

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

const mailTo = (email: string, subject: RegExp, after = new Set<ParsedMail>()) =>
  smtp.waitForMail((m) => !after.has(m) && recipients(m).includes(email) && subject.test(m.subject ?? ''))
const verificationMail = (email: string, after?: Set<ParsedMail>) => mailTo(email, /confirm your email address/, after)

async function emailVerified(s: Session): Promise<unknown> {
  const res = await authedGet(iam, s, '/secret/accesstoken/metadata')
  expect(res.status).toBe(200)
  return ((await res.json()) as Json).emailVerified
}

// a fresh IP per use: the route's per-IP limiter is not what these tests are about
let ipCounter = 0
// on the device that signed up (the one that asked for the link): elsewhere the link also needs the
// password (squatter.security.test.ts)
const verify = (query: string, device: Client) =>
  call(iam, 'POST', `/auth/verify-email${query}`, { client: { ip: `192.0.2.${++ipCounter}`, ua: device.ua, canary: device.canary } })

/**
 * Runs the change_email custom flow, POST /update/email and the confirmation link mailed to the new
 * address (on the asking device); the session after the change.
 */
async function changeEmail(user: Session, newEmail: string): Promise<Session> {
  const before = new Set(smtp.mails)
  expect((await authed(user, 'POST', '/custom/mfa/change_email', {})).status).toBe(200)
  const mail = await smtp.waitForMail((m) => !before.has(m) && recipients(m).includes(user.email) && (m.text ?? '').includes('reason=change_email&'))
  const res = await authed(user, 'POST', `/update/email${linkQueryOf(mail)}`, { code: codeOf(mail), newEmail })
  expect(res.status).toBe(200)
  const body = (await res.json()) as Json
  const confirmation = await smtp.waitForMail((m) => recipients(m).includes(newEmail) && (m.text ?? '').includes('reason=CONFIRM_EMAIL_CHANGE&'))
  expect((await verify(linkQueryOf(confirmation), user)).status).toBe(200)
  return { ...user, email: newEmail, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

describe('email verification', () => {
  it('mails a verification link at signup; the account works unverified until the link is used', async () => {
    const user = await signupUser(iam)
    const mail = await verificationMail(user.email)
    expect(mail.subject).toBe('Acme: confirm your email address')
    expect(mail.subject).not.toContain('token')
    expect(mail.text).toContain('/auth/verify-email?token=')
    expect(mail.html).toContain('/auth/verify-email?token=')
    expect(await emailVerified(user)).toBe(false)
    const query = linkQueryOf(mail)
    const preview = await call(iam, 'GET', `/auth/verify-email${query}`, { client: user })
    expect(preview.status).toBe(200)
    expect(await preview.json()).toEqual({ ok: true, date: expect.any(String), data: { link: 'Email Verification', reason: 'EMAIL_VERIFICATION' } })
    const res = await verify(query, user)
    expect(res.status).toBe(200)
    expect(await emailVerified(user)).toBe(true)
  })

  it('answers 400 for a used verification link', async () => {
    const user = await signupUser(iam)
    const query = linkQueryOf(await verificationMail(user.email))
    expect((await verify(query, user)).status).toBe(200)
    const again = await verify(query, user)
    expect(again.status).toBe(400)
    expect(await again.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link already used', code: 'link_used' })
  })

  it('answers 400 for a malformed link or a link of another flow', async () => {
    const user = await signupUser(iam)
    expect((await verify('?token=x&random=y&reason=EMAIL_VERIFICATION&visitor=v', user)).status).toBe(400)
    const before = new Set(smtp.mails)
    expect((await call(iam, 'POST', '/auth/forgot-password', { client: user, body: { email: user.email } })).status).toBe(200)
    const reset = await mailTo(user.email, /reset your password/, before)
    expect((await verify(linkQueryOf(reset), user)).status).toBe(400)
    expect(await emailVerified(user)).toBe(false)
  })

  it('ends the link of the old address when the address changes', async () => {
    const user = await signupUser(iam)
    const stale = linkQueryOf(await verificationMail(user.email))
    await changeEmail(user, uniqueEmail('moved'))
    const res = await verify(stale, user)
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).code).toBe('address_changed')
  })
})

describe('email change and verification', () => {
  it('the new address is verified by the link that moves the account there; the old one gets an undo link', async () => {
    const user = await signupUser(iam)
    const newEmail = uniqueEmail('new')
    const moved = await changeEmail(user, newEmail)
    expect(await emailVerified(moved)).toBe(true)
    const notice = await mailTo(user.email, /email address was changed/)
    expect(notice.text).toContain('/auth/undo-email-change?token=')
    expect(notice.text).toContain('reason=UNDO_EMAIL_CHANGE&')
    expect(notice.text).toContain('7 days')
  })

  it('the undo link restores the old address, marks it verified and revokes every session', async () => {
    const user = await signupUser(iam)
    const other = await loginUser(iam, user.email, user.password, user)
    const newEmail = uniqueEmail('hijack')
    const moved = await changeEmail(user, newEmail)
    const notice = await mailTo(user.email, /email address was changed/)
    const query = linkQueryOf(notice)
    const preview = await call(iam, 'GET', `/auth/undo-email-change${query}`, { client: user })
    expect(preview.status).toBe(200)
    expect(await preview.json()).toEqual({ ok: true, date: expect.any(String), data: { link: 'Undo Email Change', reason: 'UNDO_EMAIL_CHANGE' } })
    const res = await call(iam, 'POST', `/auth/undo-email-change${query}`, { client: { ip: '203.0.113.6', ua: 'mail-client' } })
    expect(res.status).toBe(200)
    expect((await refresh(iam, moved)).status).toBe(401)
    expect((await refresh(iam, other)).status).toBe(401)
    expect((await authedGet(iam, moved)).status).toBe(401)
    const back = await loginUser(iam, user.email, user.password, user)
    expect(await emailVerified(back)).toBe(true)
    await expect(loginUser(iam, newEmail, user.password, user)).rejects.toThrow(/401/)
    expect((await call(iam, 'POST', `/auth/undo-email-change${query}`, { client: user })).status).toBe(400)
  })

  it('answers 409 when the old address was taken meanwhile and changes nothing', async () => {
    const user = await signupUser(iam)
    const oldEmail = user.email
    const moved = await changeEmail(user, uniqueEmail('away'))
    const query = linkQueryOf(await mailTo(oldEmail, /email address was changed/))
    await signupUser(iam, { email: oldEmail })
    const res = await call(iam, 'POST', `/auth/undo-email-change${query}`, { client: user })
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'The previous address now belongs to another account', code: 'email_taken' })
    expect((await authedGet(iam, moved)).status).toBe(200)
  })

  it('an undo link survives a later change, and using it ends the undo links issued after it', async () => {
    const user = await signupUser(iam)
    const second = uniqueEmail('second')
    const moved = await changeEmail(user, second)
    const first = linkQueryOf(await mailTo(user.email, /email address was changed/))
    await changeEmail(moved, uniqueEmail('third'))
    const later = linkQueryOf(await mailTo(second, /email address was changed/))
    expect((await call(iam, 'POST', `/auth/undo-email-change${first}`, { client: user })).status).toBe(200)
    expect((await call(iam, 'POST', `/auth/undo-email-change${later}`, { client: user })).status).toBe(400)
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })
})

describe('POST /auth/resend-verification', () => {
  it('mails a new link to the current address, at most 3 times an hour (429 after)', async () => {
    const user = await signupUser(iam)
    const first = await verificationMail(user.email)
    const resent = () => smtp.mails.filter((m) => m !== first && recipients(m).includes(user.email) && /confirm your email address/.test(m.subject ?? ''))
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await authed(user, 'POST', '/auth/resend-verification')).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    await smtp.waitForMail(() => resent().length >= 3)
    expect(resent()).toHaveLength(3)
    // each new link ends the one before it
    expect((await verify(linkQueryOf(first), user)).status).toBe(400)
    const latest = resent().at(-1)!
    expect((await verify(linkQueryOf(latest), user)).status).toBe(200)
    expect(await emailVerified(user)).toBe(true)
  })

  it('answers 400 once the address is verified and 401 without a session', async () => {
    const user = await signupUser(iam)
    expect((await verify(linkQueryOf(await verificationMail(user.email)), user)).status).toBe(200)
    const res = await authed(user, 'POST', '/auth/resend-verification')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'The email address is already verified', code: 'email_already_verified' })
    expect((await call(iam, 'POST', '/auth/resend-verification', { client: user })).status).toBe(401)
  })
})
