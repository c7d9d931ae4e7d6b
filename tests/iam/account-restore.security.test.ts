/**
 * The way back to an account scheduled for deletion (features/account-deletion/restore-link.ts,
 * docs/accounts.md "Deleting the account"), over HTTP with a real SMTP server on loopback.
 *
 * Only the right password learns the state: POST /login answers 403 `deletionPending` with the
 * erasure date and a restore proof, opens no session, while a wrong password answers exactly what
 * an unknown address does. The proof buys one mail with a new restore link from the device that
 * signed in, once, for a short while; the new link restores the account and ends the one mailed
 * before. "Forgot password" mails the restore link instead of nothing, and answers as for any
 * address. Its own IAM: the file moves the clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, loginUser, newDevice, PROXY_CONFIG, STRONG_PASSWORD, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { linkQueryOf, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'
import { expectDocumented } from './documented'
import { humanDate } from '../../iam/features/mail/format'

const DAY_MS = 86_400_000
const PROOF_TTL_MS = 10 * 60_000
const WIDE = { points: 1000, duration: 60, blockDuration: 60 }
/** per account: the deletion request and the restore mails together (rate_limiters.emails) */
const EMAILS_PER_HOUR = 4

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      email: { siteName: 'Acme' },
      rate_limiters: {
        signup: WIDE,
        links: WIDE,
        codes: WIDE,
        login: WIDE,
        forgotPassword: WIDE,
        emailSignIn: WIDE,
        mailbox: WIDE,
        emails: { points: EMAILS_PER_HOUR, duration: 3600, blockDuration: 3600 },
        loginAccountDelay: { freeAttempts: 1000 },
      },
      accountDeletion: { purgeEveryMs: 0 },
      signIn: { emailLink: true, emailCode: true },
    },
    env: { ...CLOCK_ENV, SMTP_URL: smtp.url },
  })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

let ip = 0
const nextIp = () => `198.51.100.${(++ip % 250) + 1}`
const withoutDate = (text: string) => text.replace(/"date":"[^"]+"/, '"date":"-"')

const isUndoMail = (m: ParsedMail) => (m.text ?? '').includes('reason=UNDO_DELETE_ACCOUNT&')
const isRestoreMail = (m: ParsedMail) => isUndoMail(m) && /restore your account before it is erased/.test(m.subject ?? '')

async function footprint(email: string): Promise<{ user: { deletionDueAt: string | null } | null; rows: Record<string, number>; events: Array<{ type: string; details: Json }> }> {
  const res = await fetch(`${iam.url}/__test/account-footprint`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) })
  expect(res.status).toBe(200)
  return (await res.json()) as never
}

/** A confirmed account whose deletion is confirmed: its confirmation's dueAt and undo link query. */
async function deletedAccount(): Promise<{ s: Session; dueAt: string; undo: string }> {
  const s = await signupConfirmed(iam, smtp, { client: { ip: nextIp() } })
  const requested = await call(iam, 'POST', '/auth/delete-account', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken })
  expect(requested.status, await requested.clone().text()).toBe(202)
  const confirm = linkQueryOf(await mailTo(smtp, s.email, (m) => (m.text ?? '').includes('reason=DELETE_ACCOUNT&')))
  const confirmed = await call(iam, 'POST', `/auth/delete-account/confirm${confirm}`, { client: s })
  const body = (await confirmed.json()) as { data: { dueAt: string } }
  expect(confirmed.status).toBe(200)
  return { s, dueAt: body.data.dueAt, undo: linkQueryOf(await mailTo(smtp, s.email, isUndoMail)) }
}

const login = (client: Client, email: string, password: string) => call(iam, 'POST', '/login', { client, body: { email, password } })

/** The right password of `s` from `client`: the 403 and its restore proof. */
async function pendingLogin(s: Session, client: Client): Promise<{ res: Response; body: Json; proof: string }> {
  const res = await login(client, s.email, STRONG_PASSWORD)
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(403)
  return { res, body, proof: body.restoreProof as string }
}

const askRestore = (client: Client, restoreProof: unknown) => call(iam, 'POST', '/auth/delete-account/restore-link', { client, body: { restoreProof } })

describe('POST /login for an account scheduled for deletion', () => {
  it('answers the right password with the erasure date and a restore proof, and opens no session', async () => {
    const { s, dueAt } = await deletedAccount()
    const sessionsBefore = (await footprint(s.email)).rows.session_families
    const device = await newDevice(iam, { ip: nextIp() })
    const { res, body } = await pendingLogin(s, device)
    expectDocumented('login', 403, body)
    expect(body).toMatchObject({ ok: false, deletionPending: true, dueAt, restoreProof: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) })
    const day = new Date(dueAt).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
    expect(body.error).toBe(`This account is scheduled for deletion on ${day}. Ask for the restore link to keep it.`)
    expect(Date.parse(body.restoreProofExpiresAt as string) - Date.parse(body.date as string)).toBeLessThanOrEqual(PROOF_TTL_MS + 1000)
    // no session: no token in the body, no session cookie, no new session row
    expect(body).not.toHaveProperty('accessToken')
    expect(res.headers.getSetCookie().some((line) => line.startsWith('session='))).toBe(false)
    const after = await footprint(s.email)
    expect(after.rows.session_families).toBe(sessionsBefore)
    expect(after.user!.deletionDueAt).not.toBeNull()
    expect(after.events.filter((e) => e.type === 'login_failed').map((e) => e.details.reason)).toContain('deletion_pending')
  })

  it('answers a wrong password byte for byte as an unknown address does (status, body and headers)', async () => {
    const { s } = await deletedAccount()
    const answers = []
    for (const [email, password] of [
      [uniqueEmail('nobody'), STRONG_PASSWORD],
      [s.email, 'not the password at all 1'],
    ] as const) {
      const res = await login(await newDevice(iam, { ip: nextIp() }), email, password)
      answers.push({ status: res.status, body: withoutDate(await res.text()), cookies: res.headers.getSetCookie(), type: res.headers.get('content-type') })
    }
    expect(answers[0]!.status).toBe(401)
    expect(answers[1]).toEqual(answers[0])
  })
})

describe('POST /auth/delete-account/restore-link', () => {
  it('mails a new restore link for the proof; it restores the account, and the link mailed before no longer does', async () => {
    const { s, dueAt, undo: first } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const { proof } = await pendingLogin(s, device)
    const res = await askRestore(device, proof)
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body)).toBe(200)
    expectDocumented('restoreLink', 200, body)
    expect(body.data).toEqual({ sentTo: `${s.email[0]}***@example.com`, dueAt })

    const mail = await mailTo(smtp, s.email, isRestoreMail)
    expect(mail.subject).toBe('Acme: restore your account before it is erased')
    expect(mail.text).toContain(`it will be erased on ${humanDate(new Date(dueAt))}`)
    expect(mail.text).toContain('Any restore link we mailed before no longer works.')
    const fresh = linkQueryOf(mail)
    expect(fresh).not.toBe(first)
    // one live restore link: the confirmation's is spent
    const old = await call(iam, 'POST', `/auth/undo-delete-account${first}`, { client: device })
    expect(old.status, await old.clone().text()).toBe(400)

    const restored = await call(iam, 'POST', `/auth/undo-delete-account${fresh}`, { client: device })
    expect(restored.status, await restored.clone().text()).toBe(200)
    await expect(loginUser(iam, s.email, STRONG_PASSWORD, await newDevice(iam, { ip: nextIp() }))).resolves.toMatchObject({ accessToken: expect.any(String) })
    expect((await footprint(s.email)).events.filter((e) => e.type === 'account_restore_link_sent').map((e) => e.details)).toEqual([{ asked: 'sign_in' }])
  })

  it('takes a proof once: a second use and parallel uses get 400 and no further mail', async () => {
    const { s } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const once = await pendingLogin(s, device)
    expect((await askRestore(device, once.proof)).status).toBe(200)
    const again = await askRestore(device, once.proof)
    const body = (await again.json()) as Json
    expect(again.status).toBe(400)
    expectDocumented('restoreLink', 400, body)
    expect(body.error).toBe('This request for the restore link has expired or was already used. Sign in again to ask for it.')

    const twice = await pendingLogin(s, device)
    const parallel = await Promise.all([0, 1, 2].map(() => askRestore(device, twice.proof)))
    expect(parallel.map((r) => r.status).sort()).toEqual([200, 400, 400])
    const mails = smtp.mails.filter((m) => recipients(m).includes(s.email) && isRestoreMail(m))
    expect(mails).toHaveLength(2)
  })

  it('refuses a proof from another device than the one that signed in, and a made-up one', async () => {
    const { s } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const { proof } = await pendingLogin(s, device)
    expect((await askRestore(await newDevice(iam, { ip: nextIp() }), proof)).status).toBe(400)
    expect((await askRestore(device, 'A'.repeat(43))).status).toBe(400)
    const malformed = await askRestore(device, 'not a proof')
    expect(malformed.status).toBe(400)
    expect(((await malformed.json()) as Json).fields).toMatchObject({ restoreProof: 'Invalid restore proof' })
    // the refused tries spent nothing: the right device still gets its mail
    expect((await askRestore(device, proof)).status).toBe(200)
  })

  it('answers 409 once the account was restored meanwhile', async () => {
    const { s, undo } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const { proof } = await pendingLogin(s, device)
    expect((await call(iam, 'POST', `/auth/undo-delete-account${undo}`, { client: device })).status).toBe(200)
    const res = await askRestore(device, proof)
    const body = (await res.json()) as Json
    expect(res.status).toBe(409)
    expectDocumented('restoreLink', 409, body)
  })

  it('limits the mails per account (429 with Retry-After)', async () => {
    const { s } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    // the deletion request spent one of the account's mails
    for (let i = 1; i < EMAILS_PER_HOUR; i++) expect((await askRestore(device, (await pendingLogin(s, device)).proof)).status).toBe(200)
    const { proof } = await pendingLogin(s, device)
    const limited = await askRestore(device, proof)
    expect(limited.status).toBe(429)
    expectDocumented('restoreLink', 429, await limited.json())
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  it('lets a proof expire after ten minutes', async () => {
    const { s } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const { proof } = await pendingLogin(s, device)
    await advanceClock(iam, PROOF_TTL_MS + 1000)
    expect((await askRestore(device, proof)).status).toBe(400)
  })

  it('answers the right password as for an unknown address once the due moment has passed, and refuses a proof from before it', async () => {
    const { s } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const { proof } = await pendingLogin(s, device)
    const unknown = await login(await newDevice(iam, { ip: nextIp() }), uniqueEmail('nobody'), STRONG_PASSWORD)
    const unknownAnswer = { status: unknown.status, body: withoutDate(await unknown.text()) }
    await advanceClock(iam, 7 * DAY_MS)
    const late = await login(await newDevice(iam, { ip: nextIp() }), s.email, STRONG_PASSWORD)
    expect({ status: late.status, body: withoutDate(await late.text()) }).toEqual(unknownAnswer)
    expect((await askRestore(device, proof)).status).toBe(400)
  })
})

describe('POST /auth/forgot-password for an account scheduled for deletion', () => {
  const FIXED_BODY = '{"ok":true,"message":"If an account exists for this address, a password reset link has been sent."}'

  it('answers the same bytes as for any address and mails the restore link, which restores the account', async () => {
    const { s, dueAt, undo: first } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const unknown = await call(iam, 'POST', '/auth/forgot-password', { client: device, body: { email: uniqueEmail('ghost') } })
    const known = await call(iam, 'POST', '/auth/forgot-password', { client: device, body: { email: s.email } })
    expect({ status: unknown.status, body: await unknown.text() }).toEqual({ status: 200, body: FIXED_BODY })
    expect({ status: known.status, body: await known.text() }).toEqual({ status: 200, body: FIXED_BODY })

    const mail = await mailTo(smtp, s.email, isRestoreMail)
    expect(mail.text).toContain('Someone asked to reset the password of your Acme account.')
    expect(mail.text).toContain(`it will be erased on ${humanDate(new Date(dueAt))}`)
    expect(mail.text).not.toContain('reason=PASSWORD_RESET')
    expect((await call(iam, 'POST', `/auth/undo-delete-account${first}`, { client: device })).status).toBe(400)
    expect((await call(iam, 'POST', `/auth/undo-delete-account${linkQueryOf(mail)}`, { client: device })).status).toBe(200)
    expect((await footprint(s.email)).events.filter((e) => e.type === 'account_restore_link_sent').map((e) => e.details)).toEqual([{ asked: 'forgot_password' }])
  })
})

describe('POST /auth/email-sign-in for an account scheduled for deletion', () => {
  const FIXED_BODY = '{"ok":true,"message":"If an account exists for this address, a sign-in mail has been sent."}'

  it('answers the same bytes as for any address and mails the restore link, not a sign-in link', async () => {
    const { s, dueAt } = await deletedAccount()
    const device = await newDevice(iam, { ip: nextIp() })
    const ask = (email: string) => call(iam, 'POST', '/auth/email-sign-in', { client: device, body: { email, method: 'link' } })
    const unknown = await ask(uniqueEmail('ghost'))
    const known = await ask(s.email)
    expect({ status: unknown.status, body: await unknown.text() }).toEqual({ status: 200, body: FIXED_BODY })
    expect({ status: known.status, body: await known.text() }).toEqual({ status: 200, body: FIXED_BODY })

    const mail = await mailTo(smtp, s.email, (m) => isRestoreMail(m) && /a mail to sign in/.test(m.text ?? ''))
    expect(mail.text).toContain('Someone asked for a mail to sign in to your Acme account.')
    expect(mail.text).toContain(`it will be erased on ${humanDate(new Date(dueAt))}`)
    expect(mail.text).not.toContain('reason=EMAIL_SIGN_IN')
    expect((await call(iam, 'POST', `/auth/undo-delete-account${linkQueryOf(mail)}`, { client: device })).status).toBe(200)
    expect((await footprint(s.email)).events.filter((e) => e.type === 'account_restore_link_sent').map((e) => e.details)).toEqual([{ asked: 'email_sign_in' }])
  })
})
