/**
 * A stolen session must not become a permanent takeover. With only a session's cookies and Bearer
 * token, an attacker could otherwise enable TOTP, change the email with one of its recovery codes
 * and reset the password at the new address, and the owner's recovery (undo link, then reset) would
 * restore the address but keep the attacker's factors (docs/account-recovery.md, section 2). So:
 * - adding or removing a factor or a passkey, and changing the email, need a sign-in proof within
 *   security.reauthenticateWithinMs (the sign-in itself, or POST /auth/reauthenticate);
 * - undoing an email change removes what the changing session set up and the password set since.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, PROXY_CONFIG, setCookieValue, STRONG_PASSWORD, uniqueEmail, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed, type MailSource } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { codeOf, linkQueryOf } from '../helpers/smtp'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { newToken, verify } from './api-tokens-http'
import { loginOptions, loginVerify, registerPasskey } from './passkeys-http'
import { authed, enrolTotp, totpCode, WIDE_LOGIN } from './second-factor-http'

let iam: IamServer
let mails: MailSource
/** how far the IAM's clock is ahead of this process's (TOTP codes are made for the IAM's time) */
let skewMs = 0
const WINDOW_MS = 10 * 60_000

beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, ...WIDE_LOGIN, providers: [{ name: 'demo', useStandardProfile: true }], rate_limiters: { ...WIDE_LOGIN.rate_limiters, emails: { points: 1000, duration: 60, blockDuration: 60 }, links: { points: 1000, duration: 60, blockDuration: 60 } } }, env: CLOCK_ENV })
  mails = { dataDir: iam.dataDir }
})
afterAll(() => iam?.stop())

const REAUTH_BODY = { ok: false, date: expect.any(String), error: 'Re-authentication required', code: 'reauthentication_required', reauthenticate: true }

/** Moves past the window, keeping the session usable (its access token refreshed). */
async function pastTheWindow(s: Session): Promise<Session> {
  skewMs = (await advanceClock(iam, WINDOW_MS + 60_000)) - Date.now()
  const res = await call(iam, 'POST', '/auth/user/refresh-session', { client: s, cookies: { session: s.refreshToken } })
  expect(res.status).toBe(201)
  return { ...s, accessToken: ((await res.json()) as Json).accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

describe('the re-authentication window', () => {
  it('refuses TOTP setup, passkey registration and an email change from a session past the window with 403 reauthenticate, and allows them after POST /auth/reauthenticate', async () => {
    let user = await signupConfirmed(iam, mails)
    user = await pastTheWindow(user)
    for (const [path, body] of [['/auth/totp/setup', undefined], ['/auth/passkeys/register/options', undefined], ['/custom/mfa/change_email', {}]] as const) {
      const res = await authed(iam, user, 'POST', path, body)
      expect(res.status, path).toBe(403)
      expect(await res.json()).toEqual(REAUTH_BODY)
    }
    const wrong = await authed(iam, user, 'POST', '/auth/reauthenticate', { password: 'not my password at all' })
    expect(wrong.status).toBe(401)
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(403)
    const proven = await authed(iam, user, 'POST', '/auth/reauthenticate', { password: STRONG_PASSWORD })
    expect(proven.status, await proven.clone().text()).toBe(200)
    expect(((await proven.json()) as Json).data).toMatchObject({ method: 'password', reauthenticatedUntil: expect.any(String) })
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(200)
    expect((await authed(iam, user, 'POST', '/auth/passkeys/register/options')).status).toBe(200)
    expect((await authed(iam, user, 'POST', '/custom/mfa/change_email', {})).status).toBe(200)
    // the proof has its own window
    user = await pastTheWindow(user)
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(403)
  })

  it('refuses turning TOTP off, new recovery codes and removing a passkey past the window; a TOTP code re-authenticates an account that has one', async () => {
    let user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user, skewMs)
    const { id } = await registerPasskey(iam, user, new SoftAuthenticator())
    user = await pastTheWindow(user)
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: totpCode(secret, 1, skewMs) })).status).toBe(403)
    expect((await authed(iam, user, 'POST', '/auth/passkeys/delete', { id })).status).toBe(403)
    const stale = await authed(iam, user, 'POST', '/auth/totp/recovery-codes')
    expect(stale.status).toBe(403)
    expect(await stale.json()).toEqual(REAUTH_BODY)
    const proven = await authed(iam, user, 'POST', '/auth/reauthenticate', { code: totpCode(secret, 0, skewMs) })
    expect(proven.status, await proven.clone().text()).toBe(200)
    expect(((await proven.json()) as Json).data).toMatchObject({ method: 'second_factor' })
    expect((await authed(iam, user, 'POST', '/auth/passkeys/delete', { id })).status).toBe(200)
    expect((await authed(iam, user, 'POST', '/auth/totp/recovery-codes')).status).toBe(200)
  })

  it('tells which proof fits: a mail or a code for an account with a password and no second factor is 400 use password', async () => {
    const user = await signupConfirmed(iam, mails)
    for (const body of [{}, { code: '123456' }]) {
      const res = await authed(iam, user, 'POST', '/auth/reauthenticate', body)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ use: 'password' })
    }
  })
})

describe('an account with neither a password nor a second factor', () => {
  it('re-authenticates with a code mailed to its address, bound to the session', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.95' })
    const profile = { sub: `sub-${Date.now()}`, email: uniqueEmail('provider'), email_verified: true, name: 'Ada' }
    const signin = await call(iam, 'POST', '/auth/OAuth/demo', { client: device, body: profile })
    expect(signin.status).toBe(201)
    let user: Session = { ...device, email: profile.email, password: '', accessToken: ((await signin.json()) as Json).accessToken as string, refreshToken: setCookieValue(signin, 'session')! }
    user = await pastTheWindow(user)
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(403)
    const password = await authed(iam, user, 'POST', '/auth/reauthenticate', { password: 'anything at all here' })
    expect(password.status).toBe(400)
    expect(await password.json()).toMatchObject({ use: 'code' })
    const asked = await authed(iam, user, 'POST', '/auth/reauthenticate', {})
    expect(asked.status, await asked.clone().text()).toBe(200)
    expect(((await asked.json()) as Json).data).toMatchObject({ mailed: true, sentTo: expect.stringContaining('***@example.com') })
    const mail = await mailTo(mails, profile.email, (m) => (m.subject ?? '').includes('confirm it is you'))
    expect(mail.text).not.toContain('?token=')
    expect((await authed(iam, user, 'POST', '/auth/reauthenticate', { code: '0000000' })).status).toBe(401)
    const proven = await authed(iam, user, 'POST', '/auth/reauthenticate', { code: codeOf(mail) })
    expect(proven.status, await proven.clone().text()).toBe(200)
    expect(((await proven.json()) as Json).data).toMatchObject({ method: 'emailed_code' })
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(200)
    // the code is spent
    expect((await authed(iam, user, 'POST', '/auth/reauthenticate', { code: codeOf(mail) })).status).not.toBe(200)
  })
})

describe('the stolen-session takeover path', () => {
  it('undoing the email change removes the TOTP, passkey, API token and password the stolen session set up; the owner resets and signs in with no second factor', async () => {
    const owner = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.90' } })
    // the attacker holds a copy of the owner's fresh session (cookies and Bearer token) on a machine
    // of the same network (elsewhere, the anomaly checks would ask for the mailed code first)
    const stolen: Session = { ...owner, ip: '203.0.113.91' }
    const { recoveryCodes } = await enrolTotp(iam, stolen, skewMs)
    expect((await authed(iam, stolen, 'POST', '/custom/mfa/change_email', {})).status).toBe(200)
    const attackerEmail = uniqueEmail('attacker')
    const changed = await authed(iam, stolen, 'POST', '/update/email/second-factor', { newEmail: attackerEmail, code: recoveryCodes[0] })
    expect(changed.status, await changed.clone().text()).toBe(200)
    const afterChange: Session = { ...stolen, email: attackerEmail, accessToken: ((await changed.json()) as Json).accessToken as string, refreshToken: setCookieValue(changed, 'session')! }
    // the new address is the attacker's: they confirm it from the stolen session's device, which moves the account
    const confirm = await mailTo(mails, attackerEmail, (m) => (m.text ?? '').includes('reason=CONFIRM_EMAIL_CHANGE&'))
    expect((await call(iam, 'POST', `/auth/verify-email${linkQueryOf(confirm)}`, { client: afterChange })).status).toBe(200)
    const authenticator = new SoftAuthenticator()
    const { passkey } = await registerPasskey(iam, afterChange, authenticator)
    const token = (await newToken(iam, afterChange, { privilege: 'full' })).rawApiKey
    // the attacker resets the password at the address they now control
    const attackerDevice = await newDevice(iam, { ip: '198.51.100.99' })
    expect((await call(iam, 'POST', '/auth/forgot-password', { client: attackerDevice, body: { email: attackerEmail } })).status).toBe(200)
    const resetMail = await mailTo(mails, attackerEmail, (m) => (m.text ?? '').includes('reason=PASSWORD_RESET&'))
    const attackerPassword = 'the attacker now owns this 99'
    const reset = await call(iam, 'POST', `/auth/reset-password${linkQueryOf(resetMail)}`, { client: attackerDevice, body: { password: attackerPassword, confirmedPassword: attackerPassword } })
    expect(reset.status, await reset.clone().text()).toBe(200)

    // the owner uses the undo link mailed to the old address
    const undoMail = await mailTo(mails, owner.email, (m) => (m.text ?? '').includes('reason=UNDO_EMAIL_CHANGE&'))
    const ownerDevice = await newDevice(iam, { ip: '203.0.113.90' })
    expect((await call(iam, 'POST', `/auth/undo-email-change${linkQueryOf(undoMail)}`, { client: ownerDevice })).status).toBe(200)
    const notice = await mailTo(mails, owner.email, (m) => (m.subject ?? '').includes('your email change was undone'))
    expect(notice.text).toContain('two-step sign-in with an authenticator app')
    expect(notice.text).toContain('1 passkey')
    expect(notice.text).toContain('1 API token')
    expect(notice.text).toContain('the password set since the change')

    // the attacker has nothing left: password, passkey, token, sessions
    expect((await call(iam, 'POST', '/login', { client: attackerDevice, body: { email: owner.email, password: attackerPassword } })).status).toBe(401)
    const passkeyDevice = await newDevice(iam, { ip: '198.51.100.99' })
    const options = await loginOptions(iam, passkeyDevice)
    expect((await loginVerify(iam, passkeyDevice, authenticator.assert(options, passkey))).status).not.toBe(200)
    expect((await verify(iam, token, 'full')).status).toBe(401)
    expect((await authedGet(iam, afterChange)).status).toBe(401)

    // the owner sets a new password at the restored address and signs in without anyone's second factor
    expect((await call(iam, 'POST', '/auth/forgot-password', { client: ownerDevice, body: { email: owner.email } })).status).toBe(200)
    const ownerReset = await mailTo(mails, owner.email, (m) => (m.text ?? '').includes('reason=PASSWORD_RESET&'))
    const ownerPassword = 'the owner is back in 2026'
    expect((await call(iam, 'POST', `/auth/reset-password${linkQueryOf(ownerReset)}`, { client: ownerDevice, body: { password: ownerPassword, confirmedPassword: ownerPassword } })).status).toBe(200)
    const login = await call(iam, 'POST', '/login', { client: ownerDevice, body: { email: owner.email, password: ownerPassword } })
    expect(login.status).toBe(200)
    expect(await login.json()).toMatchObject({ ok: true, accessToken: expect.any(String) })
  })

})
