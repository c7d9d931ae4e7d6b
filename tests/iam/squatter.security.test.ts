/**
 * An address squatter gains nothing: someone signs up with another person's address and sets up
 * what they can; the owner then does what a person does (opens the verification mail on their own
 * device, or uses "Forgot password") and afterwards the squatter signs in with nothing: neither the
 * password, nor a session, nor an API token, nor a passkey (which an unconfirmed account cannot add
 * in the first place).
 */
import { describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, setCookieValue, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import { confirmEmail, mailTo, verificationQuery } from '../helpers/confirm-email'
import type { Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { linkQueryOf } from '../helpers/smtp'
import { newToken, verify } from './api-tokens-http'
import { registerOptions } from './passkeys-http'
import { authed } from './second-factor-http'

const iam = sharedIam()
const mails = sharedSmtp()

const OWNER_PASSWORD = 'the owner picks this one 2026'

/** What the squatter holds after signing up with the owner's address: a password, a session and an API token. */
async function squat(): Promise<{ squatter: Session; token: string }> {
  const squatter = await signupUser(iam, { client: { ip: '198.51.100.66' } })
  const token = (await newToken(iam, squatter, { privilege: 'full' })).rawApiKey
  expect((await verify(iam, token, 'full')).status).toBe(200)
  return { squatter, token }
}

/** The squatter's password, session and token all fail. */
async function expectLockedOut(squatter: Session, token: string): Promise<void> {
  const login = await call(iam, 'POST', '/login', { client: squatter, body: { email: squatter.email, password: squatter.password } })
  expect(login.status).toBe(401)
  expect((await authedGet(iam, squatter)).status).toBe(401)
  const verified = await verify(iam, token, 'full')
  expect(verified.status).toBe(401)
}

describe('an account whose address was never confirmed', () => {
  it('cannot add TOTP or a passkey (403 verifyEmail), and can once the address is confirmed', async () => {
    const user = await signupUser(iam)
    for (const path of ['/auth/totp/setup', '/auth/passkeys/register/options']) {
      const res = await authed(iam, user, 'POST', path)
      expect(res.status, path).toBe(403)
      expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Confirm your email address before adding a way to sign in', code: 'email_unverified', verifyEmail: true })
    }
    const verifyRes = await authed(iam, user, 'POST', '/auth/passkeys/register/verify', { credential: { id: 'x' } })
    expect(verifyRes.status).toBe(403)
    await confirmEmail(iam, user, mails)
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(200)
    expect(await registerOptions(iam, user)).toMatchObject({ rp: { id: 'localhost' } })
  })
})

describe('the owner takes the address back', () => {
  it('by "Forgot password": the reset ends the squatter\'s password, session and API token, and confirms the address', async () => {
    const { squatter, token } = await squat()
    const owner = await newDevice(iam, { ip: '203.0.113.77' })
    expect((await call(iam, 'POST', '/auth/forgot-password', { client: owner, body: { email: squatter.email } })).status).toBe(200)
    const resetMail = await mailTo(mails, squatter.email, (m) => (m.text ?? '').includes('reason=PASSWORD_RESET&'))
    const reset = await call(iam, 'POST', `/auth/reset-password${linkQueryOf(resetMail)}`, {
      client: owner,
      body: { password: OWNER_PASSWORD, confirmedPassword: OWNER_PASSWORD },
    })
    expect(reset.status, await reset.clone().text()).toBe(200)
    await expectLockedOut(squatter, token)
    const login = await call(iam, 'POST', '/login', { client: owner, body: { email: squatter.email, password: OWNER_PASSWORD } })
    expect(login.status).toBe(200)
    const session = { ...owner, email: squatter.email, password: OWNER_PASSWORD, accessToken: ((await login.json()) as Json).accessToken as string, refreshToken: setCookieValue(login, 'session')! }
    // the reset link went to the address: it is confirmed, so the owner may add a passkey now
    expect(await registerOptions(iam, session)).toMatchObject({ rp: { id: 'localhost' } })
    const events = ((await (await authedGet(iam, session, '/auth/security-events')).json()) as Json).data as { events: { type: string; details: Json }[] }
    expect(events.events.find((e) => e.type === 'squatter_setup_removed')?.details).toMatchObject({ apiTokens: 1, by: 'password_reset' })
  })

  it('by opening the verification link on their own device: it asks for a password, and a new one ends everything the squatter set up', async () => {
    const { squatter, token } = await squat()
    const query = await verificationQuery(mails, squatter.email)
    const owner = await newDevice(iam, { ip: '203.0.113.78' })
    const plain = await call(iam, 'POST', `/auth/verify-email${query}`, { client: owner })
    expect(plain.status).toBe(403)
    expect(await plain.json()).toMatchObject({ ok: false, passwordRequired: true })
    const chosen = await call(iam, 'POST', `/auth/verify-email/password${query}`, {
      client: owner,
      body: { newPassword: OWNER_PASSWORD, confirmedPassword: OWNER_PASSWORD },
    })
    expect(chosen.status, await chosen.clone().text()).toBe(200)
    expect(((await chosen.json()) as Json).data).toMatchObject({ signedOut: true })
    await expectLockedOut(squatter, token)
    expect((await call(iam, 'POST', '/login', { client: owner, body: { email: squatter.email, password: OWNER_PASSWORD } })).status).toBe(200)
  })

})

describe('the owner on a second device', () => {
  it('verifies without a password on the device that asked for the link', async () => {
    const user = await signupUser(iam)
    const query = await verificationQuery(mails, user.email)
    expect((await call(iam, 'POST', `/auth/verify-email${query}`, { client: user })).status).toBe(200)
  })

  it('confirms with the account\'s own password and keeps every session and token; a wrong password is 401', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.79' } })
    const token = (await newToken(iam, user, { privilege: 'full' })).rawApiKey
    const query = await verificationQuery(mails, user.email)
    const phone = await newDevice(iam, { ip: '203.0.113.80' })
    const wrong = await call(iam, 'POST', `/auth/verify-email/password${query}`, { client: phone, body: { password: 'not the password at all' } })
    expect(wrong.status).toBe(401)
    const right = await call(iam, 'POST', `/auth/verify-email/password${query}`, { client: phone, body: { password: STRONG_PASSWORD } })
    expect(right.status, await right.clone().text()).toBe(200)
    expect(((await right.json()) as Json).data).toMatchObject({ signedOut: false })
    expect((await authedGet(iam, user)).status).toBe(200)
    expect((await verify(iam, token, 'full')).status).toBe(200)
    expect(((await (await authedGet(iam, user, '/secret/accesstoken/metadata')).json()) as Json).emailVerified).toBe(true)
  })

  it('refuses a body with neither a password nor a new one with 400', async () => {
    const user = await signupUser(iam)
    const query = await verificationQuery(mails, user.email)
    const res = await call(iam, 'POST', `/auth/verify-email/password${query}`, { client: user, body: { newPassword: 'only one half' } })
    expect(res.status).toBe(400)
  })
})
