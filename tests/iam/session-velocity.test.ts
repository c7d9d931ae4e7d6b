/**
 * Sessions from many devices in a short window (anomaly check 6, anomalies.velocity on its
 * defaults: more than 4 devices in 10 minutes) ask the last one for the emailed code; they never
 * end a session silently. An ordinary first day (sign up, sign in again, the phone, the laptop,
 * another browser) is not asked at all.
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
  it('does not ask an ordinary first day: sign-up, signing in again, a phone, a laptop and another browser within ten minutes', async () => {
    const desktop = await newDevice(iam, { ip: '203.0.113.59' })
    const signedUp = await signupUser(iam, { client: desktop })
    const sessions = [signedUp, await loginUser(iam, signedUp.email, signedUp.password, desktop)]
    for (const ip of ['203.0.113.59', '198.51.100.59', '203.0.113.59']) {
      sessions.push(await loginUser(iam, signedUp.email, signedUp.password, await newDevice(iam, { ip })))
    }
    for (const session of sessions) expect((await authedGet(iam, session)).status).toBe(200)
  })

  it('asks the fifth device of ten minutes, and only it, for the emailed code instead of ending its session; it ends signed in', async () => {
    const devices = []
    for (let i = 0; i < 5; i++) devices.push(await newDevice(iam, { ip: `203.0.113.${60 + i}` }))
    const signedUp = await signupUser(iam, { client: devices[0]! })
    const earlier = [signedUp]
    for (const device of devices.slice(1, 4)) earlier.push(await loginUser(iam, signedUp.email, signedUp.password, device))
    for (const session of earlier) expect((await authedGet(iam, session)).status).toBe(200)
    const seen = new Set(smtp.mails)
    const fifth = await loginUser(iam, signedUp.email, signedUp.password, devices[4]!)
    const asked = await authedGet(iam, fifth)
    expect(asked.status).toBe(202)
    expect(await asked.json()).toEqual({ mfa: true, message: 'A login link has been sent to your email.', code: 'mfa_required' })
    const confirmed = await passEmailedCode(fifth, seen)
    expect((await authedGet(iam, confirmed)).status).toBe(200)
    // the earlier devices were never asked because of it
    for (const session of earlier) expect((await authedGet(iam, session)).status).toBe(200)
  })

  it('lets sessions opened with a second factor through: their sign-in was the MFA', async () => {
    const laptop = await newDevice(iam, { ip: '203.0.113.66' })
    const user = await signupConfirmed(iam, smtp, { client: laptop })
    const { recoveryCodes } = await enrolTotp(iam, user)
    // sign-up, then five more sign-ins on five more devices with the password and a recovery code: past the count of 4
    for (const code of recoveryCodes.slice(0, 5)) {
      const device = await newDevice(iam, { ip: '203.0.113.66' })
      const challenge = await passwordStep(iam, user, device)
      const session = await sessionOf(await secondFactor(iam, device, challenge, code), user, device)
      expect((await authedGet(iam, session)).status).toBe(200)
    }
  })
})
