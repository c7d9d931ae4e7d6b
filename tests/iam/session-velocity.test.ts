/**
 * Many new sessions in a short window (anomaly check 6, anomalies.velocity on its defaults: more
 * than 3 in 10 minutes) ask for the emailed code; they never end a session silently. An ordinary
 * first day opens that many: sign up, sign in again, sign in on the phone, try it once more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, setCookieValue, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { codeOf, linkQueryOf, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'
import { signupConfirmed } from '../helpers/confirm-email'
import { enrolTotp, passwordStep, secondFactor, sessionOf } from './second-factor-http'

let smtp: SmtpCapture
let iam: IamServer
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } },
      // check 5 (live sessions) apart: this file is about check 6 alone
      jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 50 } },
    },
  })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

/** The session's MFA mail (one not in `seen`), its code posted from the session's device: the new pair. */
async function passEmailedCode(s: Session, seen: Set<ParsedMail>): Promise<Session> {
  const mail = await smtp.waitForMail((m) => !seen.has(m) && recipients(m).includes(s.email) && /confirm it/.test(m.subject ?? ''), 15_000)
  const res = await call(iam, 'POST', `/auth/verify-mfa${linkQueryOf(mail)}`, { client: s, body: { code: codeOf(mail) }, cookies: { session: s.refreshToken } })
  const body = (await res.json()) as Json
  expect(res.status).toBe(200)
  return { ...s, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session') ?? s.refreshToken }
}

describe('session velocity', () => {
  it('asks the fourth and fifth sessions of ten minutes for the emailed code instead of ending them, and both end signed in', async () => {
    const laptop = await newDevice(iam, { ip: '203.0.113.60' })
    const phone = await newDevice(iam, { ip: '203.0.113.61' })
    const signedUp = await signupUser(iam, { client: laptop })
    const again = await loginUser(iam, signedUp.email, signedUp.password, laptop)
    expect((await authedGet(iam, again)).status).toBe(200)
    const onPhone = await loginUser(iam, signedUp.email, signedUp.password, phone)
    expect((await authedGet(iam, onPhone)).status).toBe(200)
    for (const device of [laptop, phone]) {
      const seen = new Set(smtp.mails)
      const session = await loginUser(iam, signedUp.email, signedUp.password, device)
      const asked = await authedGet(iam, session)
      expect(asked.status).toBe(202)
      expect(await asked.json()).toEqual({ mfa: true, message: 'A login link has been sent to your email.' })
      const confirmed = await passEmailedCode(session, seen)
      expect((await authedGet(iam, confirmed)).status).toBe(200)
    }
  })

  it('lets sessions opened with a second factor through: their sign-in was the MFA', async () => {
    const laptop = await newDevice(iam, { ip: '203.0.113.62' })
    const user = await signupConfirmed(iam, smtp, { client: laptop })
    const { recoveryCodes } = await enrolTotp(iam, user)
    // sign-up, then five more sign-ins with the password and a recovery code: past the count of 3
    for (const code of recoveryCodes.slice(0, 5)) {
      const challenge = await passwordStep(iam, user, laptop)
      const session = await sessionOf(await secondFactor(iam, laptop, challenge, code), user, laptop)
      expect((await authedGet(iam, session)).status).toBe(200)
    }
  })
})
