import { describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, setCookieValue, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { signupConfirmed } from '../helpers/confirm-email'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { recipients } from '../helpers/smtp'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { loginOptions, loginVerify, registerOptions, registerPasskey } from './passkeys-http'
import { authed } from './second-factor-http'

// the run's shared IAM (its proxy trust and wide sign-up and sign-in limits are what this file needs)
const iam = sharedIam()
const smtp = sharedSmtp()
const mails = smtp

const listPasskeys = async (s: Session) => {
  const res = await authed(iam, s, 'GET', '/auth/passkeys')
  expect(res.status).toBe(200)
  return ((await res.json()) as { data: { passkeys: Json[] } }).data.passkeys
}

describe('registering a passkey', () => {
  it('asks for a discoverable, user-verified credential of the configured relying party, excluding the ones the account has', async () => {
    const user = await signupConfirmed(iam, mails)
    const first = await registerOptions(iam, user)
    expect(first.rp).toEqual({ id: 'localhost', name: expect.any(String) })
    expect(first.user.name).toBe(user.email)
    expect(first.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' })
    expect(first.excludeCredentials).toEqual([])
    const { passkey } = await registerPasskey(iam, user, new SoftAuthenticator())
    const second = await registerOptions(iam, user)
    expect(second.excludeCredentials.map((c) => c.id)).toEqual([passkey.credentialId.toString('base64url')])
    // one WebAuthn user handle per account, so an authenticator keeps one entry for it
    expect(second.user.id).toBe(passkey.userHandle)
  })

  it('stores the passkey with its name, flags and transports and lists it for its account only', async () => {
    const owner = await signupConfirmed(iam, mails)
    const other = await signupConfirmed(iam, mails)
    await registerPasskey(iam, owner, new SoftAuthenticator(), 'Work laptop')
    await registerPasskey(iam, other, new SoftAuthenticator(), 'Other phone')
    const listed = await listPasskeys(owner)
    expect(listed).toEqual([
      {
        id: expect.any(Number),
        name: 'Work laptop',
        createdAt: expect.any(String),
        lastUsedAt: null,
        backupEligible: true,
        backedUp: true,
        transports: ['internal'],
      },
    ])
  })
})

describe('passwordless sign-in', () => {
  it('signs in with a registered passkey from a new device and answers like POST /login', async () => {
    const user = await signupConfirmed(iam, mails)
    const authenticator = new SoftAuthenticator()
    const { passkey } = await registerPasskey(iam, user, authenticator)
    const device = await newDevice(iam, { ip: '198.51.100.20' })
    const options = await loginOptions(iam, device)
    expect(options).toMatchObject({ rpId: 'localhost', allowCredentials: [], userVerification: 'required' })
    const res = await loginVerify(iam, device, authenticator.assert(options, passkey), { rememberUser: 'on' })
    const body = (await res.json()) as Json
    expect(res.status).toBe(200)
    expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: expect.any(Number) })
    const refreshToken = setCookieValue(res, 'session')
    expect(refreshToken).toBeTruthy()
    const session = { ...device, email: user.email, password: user.password, accessToken: body.accessToken as string, refreshToken: refreshToken! }
    expect((await authedGet(iam, session)).status).toBe(200)
    const [listed] = await listPasskeys(session)
    expect(listed!.lastUsedAt).toEqual(expect.any(String))
  })

  it('signs in again and again as the counter moves forward', async () => {
    const user = await signupConfirmed(iam, mails)
    const authenticator = new SoftAuthenticator()
    const { passkey } = await registerPasskey(iam, user, authenticator)
    const device = await newDevice(iam)
    for (let i = 0; i < 3; i++) expect((await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey))).status).toBe(200)
  })

  it('accepts an authenticator without a counter (always 0)', async () => {
    const user = await signupConfirmed(iam, mails)
    const authenticator = new SoftAuthenticator(undefined, undefined, 0)
    const { passkey } = await registerPasskey(iam, user, authenticator)
    const device = await newDevice(iam)
    for (let i = 0; i < 2; i++) {
      const res = await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey, { counter: 0 }))
      expect(res.status).toBe(200)
    }
  })
})

describe('deleting a passkey', () => {
  it('removes it, after which it no longer signs in', async () => {
    const user = await signupConfirmed(iam, mails)
    const authenticator = new SoftAuthenticator()
    const { passkey, id } = await registerPasskey(iam, user, authenticator)
    const res = await authed(iam, user, 'POST', '/auth/passkeys/delete', { id })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, date: expect.any(String), data: { deleted: true } })
    expect(await listPasskeys(user)).toEqual([])
    const device = await newDevice(iam)
    expect((await loginVerify(iam, device, authenticator.assert(await loginOptions(iam, device), passkey))).status).toBe(401)
  })

  it('mails the owner when a passkey is added and when one is removed (ASVS V6.3.7)', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '198.51.100.45' } })
    const { id, passkey } = await registerPasskey(iam, user, new SoftAuthenticator())
    const added = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.subject ?? '').includes('a passkey was added'))
    expect(added.text).toContain('198.51.100.45')
    expect((await authed(iam, user, 'POST', '/auth/passkeys/delete', { id })).status).toBe(200)
    const removed = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.subject ?? '').includes('a passkey was removed'))
    expect(`${added.text}${removed.text}`).not.toContain(passkey.credentialId.toString('base64url'))
  })

  it("answers 404 for another account's passkey and leaves it in place", async () => {
    const owner = await signupConfirmed(iam, mails)
    const intruder = await signupConfirmed(iam, mails)
    const { id } = await registerPasskey(iam, owner, new SoftAuthenticator())
    const res = await authed(iam, intruder, 'POST', '/auth/passkeys/delete', { id })
    expect(res.status).toBe(404)
    expect(await listPasskeys(owner)).toHaveLength(1)
    expect((await authed(iam, intruder, 'POST', '/auth/passkeys/delete', { id: 'x' })).status).toBe(400)
  })

  it('requires a signed-in session for every management route', async () => {
    const device = await newDevice(iam)
    for (const [method, path] of [['GET', '/auth/passkeys'], ['POST', '/auth/passkeys/register/options'], ['POST', '/auth/passkeys/register/verify'], ['POST', '/auth/passkeys/delete']] as const) {
      expect((await call(iam, method, path, { client: device, body: method === 'POST' ? {} : undefined })).status, path).toBe(401)
    }
  })
})
