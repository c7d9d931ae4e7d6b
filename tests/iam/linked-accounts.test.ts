/**
 * How a provider account gains and loses ways in: a first password without a current
 * one (POST /auth/set-password) and unlinking a provider (POST /auth/linked-accounts/unlink), both
 * behind a recent sign-in, and never removing the last way in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, setCookieValue, STRONG_PASSWORD, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed, type MailSource } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { codeOf } from '../helpers/smtp'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { expectDocumented } from './documented'
import { registerPasskey } from './passkeys-http'
import { authed, WIDE_LOGIN } from './second-factor-http'

let iam: IamServer
let mails: MailSource
const WINDOW_MS = 10 * 60_000
const NEW_PASSWORD = 'a first passphrase of my own 2026'

beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      ...WIDE_LOGIN,
      providers: [{ name: 'demo', useStandardProfile: true }, { name: 'other', useStandardProfile: true }],
      rate_limiters: { ...WIDE_LOGIN.rate_limiters, emails: { points: 1000, duration: 60, blockDuration: 60 }, oauth: { points: 1000, duration: 60, blockDuration: 60 } },
      anomalies: { velocity: { count: 50 } },
      jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 50 } },
    },
    env: CLOCK_ENV,
  })
  mails = { dataDir: iam.dataDir }
}, 240_000)
afterAll(() => iam?.stop())

let ipSeq = 0
const freshDevice = () => newDevice(iam, { ip: `198.51.100.${++ipSeq}` })

/** Signs in (creating the account the first time) with a provider profile the gateway would forward. */
async function providerSignIn(provider: string, profile: Json, client: Client): Promise<Session> {
  const res = await call(iam, 'POST', `/auth/OAuth/${provider}`, { client, body: profile })
  expect([200, 201], await res.clone().text()).toContain(res.status)
  const body = (await res.json()) as Json
  return { ...client, email: String(profile.email), password: '', accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

async function providerAccount(): Promise<{ session: Session; profile: Json }> {
  const profile = { sub: `sub-${Date.now()}-${++ipSeq}`, email: uniqueEmail('provider'), email_verified: true, name: 'Ada' }
  return { session: await providerSignIn('demo', profile, await freshDevice()), profile }
}

const methods = async (s: Session) => ((await (await authed(iam, s, 'GET', '/auth/sign-in-methods')).json()) as { data: Json }).data
const events = async (s: Session) =>
  ((await (await authedGet(iam, s, '/auth/security-events?limit=20')).json()) as { data: { events: Array<{ type: string; details: Json }> } }).data.events

const REAUTH_BODY = { ok: false, date: expect.any(String), error: 'Re-authentication required', code: 'reauthentication_required', reauthenticate: true }

/** Moves the IAM's clock past the re-authentication window, keeping the session usable. */
async function pastTheWindow(s: Session): Promise<Session> {
  await advanceClock(iam, WINDOW_MS + 60_000)
  const res = await call(iam, 'POST', '/auth/user/refresh-session', { client: s, cookies: { session: s.refreshToken } })
  expect(res.status).toBe(201)
  return { ...s, accessToken: ((await res.json()) as Json).accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

describe('POST /auth/set-password', () => {
  it('lets a provider-only account set a first password after a recent sign-in, and then sign in with it', async () => {
    const { session } = await providerAccount()
    expect(await methods(session)).toMatchObject({ password: false, providers: ['demo'] })
    const res = await authed(iam, session, 'POST', '/auth/set-password', { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD })
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body).toEqual({ ok: true, date: expect.any(String), data: { password: true } })
    expectDocumented('setPassword', 200, body)
    expect(await methods(session)).toMatchObject({ password: true, providers: ['demo'] })
    // this session goes on, and the password signs in
    expect((await authedGet(iam, session)).status).toBe(200)
    await expect(loginUser(iam, session.email, NEW_PASSWORD, session)).resolves.toMatchObject({ accessToken: expect.any(String) })
    expect((await events(session)).map((e) => e.type)).toContain('password_set')
    const notice = await mailTo(mails, session.email, (m) => (m.subject ?? '').includes('a password was set'))
    expect(notice.text).not.toContain(NEW_PASSWORD)
  })

  it('refuses an account that has a password with 409: it still needs the current one (POST /auth/change-password)', async () => {
    const user = await signupConfirmed(iam, mails)
    const res = await authed(iam, user, 'POST', '/auth/set-password', { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD })
    expect(res.status).toBe(409)
    expect(((await res.json()) as Json).error).toMatch(/already has a password/)
    await expect(loginUser(iam, user.email, NEW_PASSWORD, user)).rejects.toThrow(/401/)
    await expect(loginUser(iam, user.email, STRONG_PASSWORD, user)).resolves.toBeTruthy()
  })

  it('answers a session past the re-authentication window with 403 reauthenticate, and sets the password after the mailed-code proof', async () => {
    const { session } = await providerAccount()
    const stale = await pastTheWindow(session)
    const refused = await authed(iam, stale, 'POST', '/auth/set-password', { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual(REAUTH_BODY)
    expect(await methods(stale)).toMatchObject({ password: false })
    expect((await authed(iam, stale, 'POST', '/auth/reauthenticate', {})).status).toBe(200)
    const mail = await mailTo(mails, stale.email, (m) => (m.subject ?? '').includes('confirm it is you'))
    expect((await authed(iam, stale, 'POST', '/auth/reauthenticate', { code: codeOf(mail) })).status).toBe(200)
    expect((await authed(iam, stale, 'POST', '/auth/set-password', { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD })).status).toBe(200)
  })

  it('holds a first password to the policy and the confirmation (400 at the field)', async () => {
    const { session } = await providerAccount()
    const weak = await authed(iam, session, 'POST', '/auth/set-password', { password: 'password', confirmedPassword: 'password' })
    expect(weak.status).toBe(400)
    expect(((await weak.json()) as Json).fields).toHaveProperty('password')
    const mismatch = await authed(iam, session, 'POST', '/auth/set-password', { password: NEW_PASSWORD, confirmedPassword: `${NEW_PASSWORD}!` })
    expect(mismatch.status).toBe(400)
    expect(((await mismatch.json()) as Json).fields).toHaveProperty('confirmedPassword')
    expect(await methods(session)).toMatchObject({ password: false })
  })
})

describe('POST /auth/linked-accounts/unlink', () => {
  it('lists linked accounts with the provider, the address it gave and the date, without ids', async () => {
    const { session, profile } = await providerAccount()
    const linked = (await methods(session)).linked as Json[]
    expect(linked).toEqual([{ provider: 'demo', email: profile.email, linkedAt: expect.any(String) }])
    expect(Number.isNaN(Date.parse(linked[0]!.linkedAt as string))).toBe(false)
  })

  it('refuses to unlink the last way in with 409 and keeps the provider', async () => {
    const { session, profile } = await providerAccount()
    const res = await authed(iam, session, 'POST', '/auth/linked-accounts/unlink', { provider: 'demo' })
    expect(res.status).toBe(409)
    expect(((await res.json()) as Json).error).toMatch(/only way to sign in/)
    expect(await methods(session)).toMatchObject({ providers: ['demo'] })
    await expect(providerSignIn('demo', profile, await freshDevice())).resolves.toBeTruthy()
  })

  it('unlinks once a password is set: the provider no longer signs in to the account, and a security event says which', async () => {
    const { session, profile } = await providerAccount()
    expect((await authed(iam, session, 'POST', '/auth/set-password', { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD })).status).toBe(200)
    const res = await authed(iam, session, 'POST', '/auth/linked-accounts/unlink', { provider: 'demo' })
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body)).toBe(200)
    expectDocumented('unlinkProvider', 200, body)
    expect(await methods(session)).toMatchObject({ password: true, providers: [], linked: [] })
    expect((await events(session)).find((e) => e.type === 'provider_unlinked')?.details).toEqual({ provider: 'demo' })
    // the provider account no longer opens this account: its address belongs to a password account now
    const again = await call(iam, 'POST', '/auth/OAuth/demo', { client: await freshDevice(), body: profile })
    expect(again.status).toBe(409)
    await expect(loginUser(iam, session.email, NEW_PASSWORD, session)).resolves.toBeTruthy()
  })

  it('unlinks one provider while another one or a passkey remains', async () => {
    const { session, profile } = await providerAccount()
    // the same verified address at a second provider links to the account (no password yet)
    await providerSignIn('other', { sub: `other-${Date.now()}`, email: profile.email, email_verified: true }, await freshDevice())
    expect(await methods(session)).toMatchObject({ providers: ['demo', 'other'] })
    expect((await authed(iam, session, 'POST', '/auth/linked-accounts/unlink', { provider: 'other' })).status).toBe(200)
    expect((await authed(iam, session, 'POST', '/auth/linked-accounts/unlink', { provider: 'demo' })).status).toBe(409)
    await registerPasskey(iam, session, new SoftAuthenticator(), 'Laptop')
    expect((await authed(iam, session, 'POST', '/auth/linked-accounts/unlink', { provider: 'demo' })).status).toBe(200)
    expect(await methods(session)).toMatchObject({ password: false, passkeys: 1, providers: [] })
  })

  it('answers 404 for a provider that is not linked, and 400 without a provider', async () => {
    const { session } = await providerAccount()
    expect((await authed(iam, session, 'POST', '/auth/linked-accounts/unlink', { provider: 'other' })).status).toBe(404)
    expect((await authed(iam, session, 'POST', '/auth/linked-accounts/unlink', {})).status).toBe(400)
  })

  it('answers a session past the re-authentication window with 403 reauthenticate', async () => {
    const { session } = await providerAccount()
    expect((await authed(iam, session, 'POST', '/auth/set-password', { password: NEW_PASSWORD, confirmedPassword: NEW_PASSWORD })).status).toBe(200)
    const stale = await pastTheWindow(session)
    const res = await authed(iam, stale, 'POST', '/auth/linked-accounts/unlink', { provider: 'demo' })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual(REAUTH_BODY)
    expect(await methods(stale)).toMatchObject({ providers: ['demo'] })
  })
})
