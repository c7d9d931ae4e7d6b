import { describe, expect, it } from 'vitest'
import { call, loginUser, newDevice, ownSecurityEvents, refresh, setCookieValue, signupUser, uniqueEmail, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { codeOf, linkQueryOf, recipients, type ParsedMail } from '../helpers/smtp'

const iam = sharedIam()
const smtp = sharedSmtp()

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

async function startChange(s: Session): Promise<ParsedMail> {
  const before = new Set(smtp.mails)
  const res = await authed(s, 'POST', '/custom/mfa/change_email', {})
  expect(res.status).toBe(200)
  return smtp.waitForMail((m) => !before.has(m) && recipients(m).includes(s.email) && (m.text ?? '').includes('reason=change_email&'))
}

/** The confirmation link mailed to the new address of a change. */
const confirmationMail = (newEmail: string) => smtp.waitForMail((m) => recipients(m).includes(newEmail) && (m.text ?? '').includes('reason=CONFIRM_EMAIL_CHANGE&'))

/** Asks for the change; the session after it (the answer carries a new access token). */
async function askChange(user: Session, newEmail: string): Promise<Session> {
  const mail = await startChange(user)
  const res = await authed(user, 'POST', `/update/email${linkQueryOf(mail)}`, { code: codeOf(mail), newEmail })
  const body = (await res.json()) as Json
  expect(res.status).toBe(200)
  expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
  return { ...user, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

/** How many email_changed events the account has, as its own activity page lists them. */
const changedEvents = async (session: Session) => (await ownSecurityEvents(iam, session)).filter((e) => e.type === 'email_changed')

/** Opens the confirmation link on the device that asked for the change. */
const confirm = (query: string, device: Session) => call(iam, 'POST', `/auth/verify-email${query}`, { client: device })

describe('POST /update/email', () => {
  it('keeps the old address until the link mailed to the new one is used: a mistyped address never takes the account', async () => {
    const user = await signupUser(iam)
    const typo = uniqueEmail('typo')
    const current = await askChange(user, typo)
    await confirmationMail(typo)
    expect((await authed(current, 'GET', '/secret/data')).status).toBe(200)
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
    await expect(loginUser(iam, typo, user.password, user)).rejects.toThrow(/401/)
    // no notice to the old address while nothing changed
    expect(smtp.mails.some((m) => recipients(m).includes(user.email) && /email address was changed/.test(m.subject ?? ''))).toBe(false)
    const pending = await authed(current, 'GET', '/update/email/pending')
    expect(await pending.json()).toEqual({ ok: true, date: expect.any(String), data: { pending: { sentTo: 't***@example.com', expiresAt: expect.any(String) } } })
  })

  it('moves the address once the new one confirms its link, tells the old one with an undo link and revokes every other session', async () => {
    const user = await signupUser(iam)
    const elsewhere = await loginUser(iam, user.email, user.password, user)
    const newEmail = uniqueEmail('moved')
    const current = await askChange(user, newEmail)
    expect((await refresh(iam, elsewhere)).status).toBe(201)
    const link = linkQueryOf(await confirmationMail(newEmail))
    const res = await confirm(link, current)
    expect(res.status).toBe(200)
    expect((await authed(current, 'GET', '/secret/data')).status).toBe(200)
    expect((await refresh(iam, await loginUser(iam, newEmail, user.password, user))).status).toBe(201)
    const notice = await smtp.waitForMail((m) => recipients(m).includes(user.email) && /email address was changed/.test(m.subject ?? ''))
    expect(notice.text).toContain(`${newEmail[0]}***@example.com`)
    expect(notice.text).toContain('reason=UNDO_EMAIL_CHANGE&')
    await expect(loginUser(iam, user.email, user.password, user)).rejects.toThrow(/401/)
    expect((await refresh(iam, elsewhere)).status).toBe(401)
    const pending = await authed(current, 'GET', '/update/email/pending')
    expect(((await pending.json()) as Json).data).toEqual({ pending: null })
    // the undo still puts the old address back
    const undo = await call(iam, 'POST', `/auth/undo-email-change${linkQueryOf(notice)}`, { client: user })
    expect(undo.status).toBe(200)
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })

  it('refuses a second use of the confirmation link (400 link_used)', async () => {
    const user = await signupUser(iam)
    const newEmail = uniqueEmail('twice')
    const current = await askChange(user, newEmail)
    const link = linkQueryOf(await confirmationMail(newEmail))
    expect((await confirm(link, current)).status).toBe(200)
    const again = await confirm(link, current)
    expect(again.status).toBe(400)
    expect(((await again.json()) as Json).code).toBe('link_used')
  })

  it('refuses a link of an older change once a newer one was asked (400), and the newer one works', async () => {
    const user = await signupUser(iam)
    const first = uniqueEmail('first')
    const second = uniqueEmail('second')
    let current = await askChange(user, first)
    const older = linkQueryOf(await confirmationMail(first))
    current = await askChange(current, second)
    const stale = await confirm(older, current)
    expect(stale.status).toBe(400)
    expect(((await stale.json()) as Json).code).toBe('link_used')
    expect((await confirm(linkQueryOf(await confirmationMail(second)), current)).status).toBe(200)
    await expect(loginUser(iam, second, user.password, user)).resolves.toBeTruthy()
  })

  it('answers 409 email_taken when another account took the new address before the link was used, and changes nothing', async () => {
    const user = await signupUser(iam)
    const newEmail = uniqueEmail('raced')
    const current = await askChange(user, newEmail)
    const link = linkQueryOf(await confirmationMail(newEmail))
    await signupUser(iam, { email: newEmail })
    const res = await confirm(link, current)
    expect(res.status).toBe(409)
    expect(((await res.json()) as Json).code).toBe('email_taken')
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
    expect((await authed(current, 'GET', '/secret/data')).status).toBe(200)
  })

  it('needs the account password when the link is opened on another device, and a new password is no proof there', async () => {
    const user = await signupUser(iam)
    const newEmail = uniqueEmail('other')
    await askChange(user, newEmail)
    const link = linkQueryOf(await confirmationMail(newEmail))
    const stranger = await newDevice(iam)
    const bare = await call(iam, 'POST', `/auth/verify-email${link}`, { client: stranger })
    expect(bare.status).toBe(403)
    expect(((await bare.json()) as Json).code).toBe('password_required')
    const chosen = await call(iam, 'POST', `/auth/verify-email/password${link}`, {
      client: stranger,
      body: { newPassword: 'a brand new passphrase 99', confirmedPassword: 'a brand new passphrase 99' },
    })
    expect(chosen.status).toBe(403)
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
    const proved = await call(iam, 'POST', `/auth/verify-email/password${link}`, { client: stranger, body: { password: user.password } })
    expect(proved.status).toBe(200)
    await expect(loginUser(iam, newEmail, user.password, user)).resolves.toBeTruthy()
  })

  it('cancelling the waiting change ends its link', async () => {
    const user = await signupUser(iam)
    const newEmail = uniqueEmail('cancel')
    const current = await askChange(user, newEmail)
    const link = linkQueryOf(await confirmationMail(newEmail))
    const cancel = await authed(current, 'POST', '/update/email/cancel')
    expect(await cancel.json()).toEqual({ ok: true, date: expect.any(String), data: { cancelled: true } })
    const res = await confirm(link, current)
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).code).toBe('link_used')
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
  })

  it('mails the waiting change a new link on request: the new link confirms it, the older one no longer does', async () => {
    const user = await signupUser(iam)
    const newEmail = uniqueEmail('resend')
    const current = await askChange(user, newEmail)
    const first = linkQueryOf(await confirmationMail(newEmail))
    const resend = await authed(current, 'POST', '/update/email/resend')
    expect(resend.status).toBe(200)
    expect(await resend.json()).toEqual({ ok: true, date: expect.any(String), data: { sentTo: `${newEmail[0]}***@example.com` } })
    const again = linkQueryOf(await smtp.waitForMail((m) => recipients(m).includes(newEmail) && (m.text ?? '').includes('reason=CONFIRM_EMAIL_CHANGE&') && linkQueryOf(m) !== first))
    const stale = await confirm(first, current)
    expect(stale.status).toBe(400)
    expect(((await stale.json()) as Json).code).toBe('link_used')
    expect((await confirm(again, current)).status).toBe(200)
    await expect(loginUser(iam, newEmail, user.password, user)).resolves.toBeTruthy()
  })

  it('answers 400 email_change_not_pending to a resend with no change waiting', async () => {
    const user = await signupUser(iam)
    const res = await authed(user, 'POST', '/update/email/resend')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'No email change is waiting for its confirmation', code: 'email_change_not_pending' })
  })

  it('answers 400 for an address in use, changes nothing and leaves the link usable', async () => {
    const taken = await signupUser(iam)
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const query = linkQueryOf(mail)
    const res = await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail), newEmail: taken.email.toUpperCase().replace('@EXAMPLE.COM', '@example.com') })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Email already in use', code: 'email_taken', fields: { newEmail: 'Email already in use' } })
    expect((await authed(user, 'GET', '/secret/data')).status).toBe(200)
    await expect(loginUser(iam, user.email, user.password, user)).resolves.toBeTruthy()
    const retry = await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail), newEmail: uniqueEmail('retry') })
    expect(retry.status).toBe(200)
  })

  it('answers 400 for a malformed or disposable address before spending the link', async () => {
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const query = linkQueryOf(mail)
    for (const newEmail of ['not-an-address', 'someone@mailinator.com']) {
      const res = await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail), newEmail })
      expect(res.status).toBe(400)
      expect(((await res.json()) as Json).fields).toEqual({ newEmail: expect.any(String) })
    }
    expect((await authed(user, 'POST', `/update/email${query}`, { code: codeOf(mail) })).status).toBe(400)
  })

  it('answers 401 for a wrong code and 400 for a link of another flow', async () => {
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const wrong = codeOf(mail) === '7777777' ? '8888888' : '7777777'
    const res = await authed(user, 'POST', `/update/email${linkQueryOf(mail)}`, { code: wrong, newEmail: uniqueEmail() })
    expect(res.status).toBe(401)
    const pay = await authed(user, 'POST', '/custom/mfa/PAYMENT_CONFIRM', {})
    expect(pay.status).toBe(200)
    const payMail = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.text ?? '').includes('reason=PAYMENT_CONFIRM&'))
    const other = await authed(user, 'POST', `/update/email${linkQueryOf(payMail)}`, { code: codeOf(payMail), newEmail: uniqueEmail() })
    expect(other.status).toBe(400)
  })

  it('records the security event with user, device, IP and time when the new address confirms, not before', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.61' } })
    const newEmail = uniqueEmail('evt')
    const current = await askChange(user, newEmail)
    const link = linkQueryOf(await confirmationMail(newEmail))
    expect(await changedEvents(current)).toEqual([])
    const before = Date.now()
    expect((await confirm(link, current)).status).toBe(200)
    const events = await changedEvents(current)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ type: 'email_changed', ipAddress: '198.51.100.61', browser: expect.any(String) })
    expect(Date.parse(events[0]!.createdAt)).toBeGreaterThanOrEqual(before - 1000)
  })

  it('requires authentication (401)', async () => {
    const user = await signupUser(iam)
    const mail = await startChange(user)
    const res = await call(iam, 'POST', `/update/email${linkQueryOf(mail)}`, { client: user, body: { code: codeOf(mail), newEmail: uniqueEmail() } })
    expect(res.status).toBe(401)
  })
})
