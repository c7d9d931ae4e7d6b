import { describe, expect, it } from 'vitest'
import { newDevice, setCookieValue, uniqueEmail, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { signupConfirmed } from '../helpers/confirm-email'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { linkQueryOf, recipients, codeOf, type ParsedMail } from '../helpers/smtp'
import { authed, enrolTotp, passwordStep, secondFactor, sessionOf, totpCode } from './second-factor-http'

// the run's shared IAM (its proxy trust and wide sign-up and sign-in limits are what this file needs)
const iam = sharedIam()
const smtp = sharedSmtp()
const mails = smtp

async function startFlow(s: Session, reason: string): Promise<ParsedMail> {
  const res = await authed(iam, s, 'POST', `/custom/mfa/${reason}`, {})
  expect(res.status).toBe(200)
  return smtp.waitForMail((m) => recipients(m).includes(s.email) && (m.text ?? '').includes(`reason=${reason}&`))
}

const tokensOf = async (s: Session, res: Response): Promise<Session> => {
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(200)
  return { ...s, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

describe('a second factor in place of the emailed code', () => {
  it('completes a custom MFA flow this session started with a TOTP code; the mailed link is then spent', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const mail = await startFlow(user, 'PAYMENT_CONFIRM')
    const res = await authed(iam, user, 'POST', '/auth/verify-custom-mfa/second-factor', { reason: 'PAYMENT_CONFIRM', code: totpCode(secret, 1) })
    const after = await tokensOf(user, res)
    const link = await authed(iam, after, 'POST', `/auth/verify-custom-mfa${linkQueryOf(mail)}`, { code: codeOf(mail) })
    expect(link.status).toBe(400)
    expect(((await link.json()) as Json).error).toBe('Link already used')
  })

  it('leaves the emailed link and code working for an account with a second factor', async () => {
    const user = await signupConfirmed(iam, mails)
    await enrolTotp(iam, user)
    const mail = await startFlow(user, 'PAYMENT_CONFIRM')
    const res = await authed(iam, user, 'POST', `/auth/verify-custom-mfa${linkQueryOf(mail)}`, { code: codeOf(mail) })
    expect(res.status).toBe(200)
  })

  it('refuses a flow nobody started with 400, and counts wrong codes against the flow\'s attempts', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const none = await authed(iam, user, 'POST', '/auth/verify-custom-mfa/second-factor', { reason: 'NOT_STARTED', code: totpCode(secret, 1) })
    expect(none.status).toBe(400)
    expect(await none.json()).toEqual({ ok: false, date: expect.any(String), error: 'No confirmation is pending for this reason; start it first', code: 'flow_not_started' })
    await startFlow(user, 'WIRE_OUT')
    // magic_links.attempts (3) covers both proofs: three wrong ones end the flow
    for (let i = 0; i < 3; i++) {
      expect((await authed(iam, user, 'POST', '/auth/verify-custom-mfa/second-factor', { reason: 'WIRE_OUT', code: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ' })).status).toBe(401)
    }
    const right = await authed(iam, user, 'POST', '/auth/verify-custom-mfa/second-factor', { reason: 'WIRE_OUT', code: totpCode(secret, 1) })
    expect(right.status).toBe(400)
  })

  it('refuses an account without a second factor with 401', async () => {
    const user = await signupConfirmed(iam, mails)
    await startFlow(user, 'PAYMENT_CONFIRM')
    const res = await authed(iam, user, 'POST', '/auth/verify-custom-mfa/second-factor', { reason: 'PAYMENT_CONFIRM', code: '123456' })
    expect(res.status).toBe(401)
  })

  it('changes the email with a recovery code after POST /custom/mfa/change_email', async () => {
    const user = await signupConfirmed(iam, mails)
    const { recoveryCodes } = await enrolTotp(iam, user)
    await startFlow(user, 'change_email')
    const newEmail = uniqueEmail('moved')
    const res = await authed(iam, user, 'POST', '/update/email/second-factor', { newEmail, code: recoveryCodes[0] })
    const after = await tokensOf(user, res)
    const again = await authed(iam, after, 'POST', '/update/email/second-factor', { newEmail: uniqueEmail('again'), code: recoveryCodes[1] })
    expect(again.status).toBe(400)
  })
})

describe('notices', () => {
  it('mails the owner when two-step sign-in is turned on, a recovery code is used and it is turned off, never a code', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '198.51.100.88' } })
    const { secret, recoveryCodes } = await enrolTotp(iam, user)
    const on = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.subject ?? '').includes('two-step sign-in was turned on'))
    expect(on.text).toContain('from 198.51.100.88')
    const device = await newDevice(iam, { ip: '198.51.100.88' })
    await sessionOf(await secondFactor(iam, device, await passwordStep(iam, user, device), recoveryCodes[0]!), user, device)
    const used = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.subject ?? '').includes('a recovery code was used'))
    expect(used.text).toContain('9 recovery codes left')
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: totpCode(secret, 1) })).status).toBe(200)
    const off = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.subject ?? '').includes('two-step sign-in was turned off'))
    for (const mail of [on, used, off]) {
      for (const code of recoveryCodes) expect(`${mail.subject} ${mail.text} ${mail.html}`).not.toContain(code)
      expect(`${mail.text}`).not.toContain(secret)
    }
  })
})

