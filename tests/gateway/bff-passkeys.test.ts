/**
 * The BFF routes of passkeys against the real IAM, with answers from the software authenticator
 * (its client data names the IAM's configured origin, http://localhost:3000): registration as a
 * signed-in browser, passwordless sign-in with tokens only as cookies, removal, and the CSRF rule
 * on each new unsafe route.
 */
// store-independent: the gateway keeps no store of its own; the passkey ceremonies run on both stores in tests/iam/passkeys.test.ts
import { describe, expect, it } from 'vitest'
import { mailTo } from '../helpers/confirm-email'
import { codeOf } from '../helpers/smtp'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { browserLike, confirmEmailThrough, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

// the gateway project's shared IAM (its sign-up and sign-in limits are wide)
const stack = await setupStackOnSharedIam()

type Browser = ReturnType<typeof browserLike>

async function signedUpBrowser(): Promise<Browser> {
  const b = browserLike(stack.gateway.url)
  const email = freshEmail('passkey')
  const signup = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'T', termsConsent: 'on' } })
  expect(signup.status, signup.text).toBe(201)
  await confirmEmailThrough(b, stack.iam, email)
  return b
}

async function register(b: Browser, authenticator: SoftAuthenticator, name?: string) {
  const options = await b.call('/api/auth/passkeys/register/options', { method: 'POST' })
  expect(options.status, options.text).toBe(200)
  const { passkey, credential } = authenticator.register((options.json.data as { options: { challenge: string; user: { id: string } } }).options)
  const verify = await b.call('/api/auth/passkeys/register/verify', { method: 'POST', body: { credential, ...(name ? { name } : {}) } })
  expect(verify.status, verify.text).toBe(200)
  return { passkey, id: (verify.json.data as { passkey: { id: number } }).passkey.id }
}

describe('passkeys through the BFF', () => {
  it('registers a passkey, then signs a new browser in with it; tokens only ever as cookies', async () => {
    const owner = await signedUpBrowser()
    const authenticator = new SoftAuthenticator()
    const { passkey } = await register(owner, authenticator, 'Phone')
    const listed = await owner.call('/api/auth/passkeys')
    expect((listed.json.data as { passkeys: { name: string }[] }).passkeys.map((p) => p.name)).toEqual(['Phone'])

    const b = browserLike(stack.gateway.url)
    const options = await b.call('/api/auth/passkeys/login/options', { method: 'POST' })
    expect(options.status, options.text).toBe(200)
    // the BFF gave this browser its device cookie on the way
    expect(b.jar.has('canary_id')).toBe(true)
    const assertion = authenticator.assert((options.json.data as { options: { challenge: string } }).options, passkey)
    const done = await b.call('/api/auth/passkeys/login/verify', { method: 'POST', body: { credential: assertion } })
    expect(done.status, done.text).toBe(200)
    expect(done.json).toEqual({ ok: true, date: expect.any(String), signedIn: true })
    expect(done.text).not.toContain('accessToken')
    expect(b.jar.has('session')).toBe(true)
    expect((await b.call('/api/auth/passkeys')).status).toBe(200)

    // the challenge was spent: the same answer again is refused like any bad assertion
    const replay = await b.call('/api/auth/passkeys/login/verify', { method: 'POST', body: { credential: assertion } })
    expect(replay.status).toBe(401)
    expect(replay.json).toMatchObject({ ok: false, error: 'The passkey could not be verified; try again' })
  })

  it('removes a passkey, and answers 404 for one that is gone', async () => {
    const b = await signedUpBrowser()
    const { id } = await register(b, new SoftAuthenticator())
    expect((await b.call('/api/auth/passkeys/delete', { method: 'POST', body: { id } })).status).toBe(200)
    expect((await b.call('/api/auth/passkeys/delete', { method: 'POST', body: { id } })).status).toBe(404)
    expect((await b.call('/api/auth/passkeys')).json.data).toEqual({ passkeys: [] })
  })

  it('refuses a malformed credential with 400 before calling the IAM', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/auth/passkeys/login/verify', { method: 'POST', body: { credential: { id: 'x' } } })
    expect(res.status).toBe(400)
  })

  it('refuses every new unsafe route without the X-CSRF header or from another origin, before the IAM is called', async () => {
    const b = await signedUpBrowser()
    const { id } = await register(b, new SoftAuthenticator())
    const routes = [
      '/api/auth/passkeys/register/options',
      '/api/auth/passkeys/register/verify',
      '/api/auth/passkeys/delete',
      '/api/auth/passkeys/login/options',
      '/api/auth/passkeys/login/verify',
      '/api/auth/passkey-signup/start',
      '/api/auth/passkey-signup/options',
      '/api/auth/passkey-signup/finish',
    ]
    for (const path of routes) {
      const noHeader = await b.call(path, { method: 'POST', body: { id }, headers: { 'x-csrf': '' } })
      expect(noHeader.status, path).toBe(403)
      const crossSite = await b.call(path, { method: 'POST', body: { id }, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
      expect(crossSite.status, path).toBe(403)
      expect(crossSite.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
    }
    // nothing above reached the IAM: the passkey is still there
    expect((await b.call('/api/auth/passkeys')).json.data).toMatchObject({ passkeys: [{ id }] })
  })
})

describe('sign-up with a passkey through the BFF', () => {
  it('creates a signed-in account without a password from the mailed code and the passkey; tokens only ever as cookies', async () => {
    const b = browserLike(stack.gateway.url)
    const email = freshEmail('pksignup')
    const start = await b.call('/api/auth/passkey-signup/start', { method: 'POST', body: { email, name: 'Ada', termsConsent: 'on' } })
    expect(start.status, start.text).toBe(200)
    // the BFF gave this browser its device cookie on the way: the ceremony is bound to it
    expect(b.jar.has('canary_id')).toBe(true)
    const mail = await mailTo({ dataDir: stack.iam.dataDir }, email, (m) => (m.subject ?? '').includes('sign-up code'))
    const options = await b.call('/api/auth/passkey-signup/options', { method: 'POST', body: { email, code: codeOf(mail) } })
    expect(options.status, options.text).toBe(200)
    const data = options.json.data as { options: { challenge: string; user: { id: string } }; ceremonyId: string }
    const { credential } = new SoftAuthenticator().register(data.options)
    const done = await b.call('/api/auth/passkey-signup/finish', { method: 'POST', body: { ceremonyId: data.ceremonyId, credential } })
    expect(done.status, done.text).toBe(201)
    expect(done.json).toEqual({ ok: true, date: expect.any(String), signedIn: true })
    expect(done.text).not.toContain('accessToken')
    expect(b.jar.has('session')).toBe(true)
    const methods = await b.call('/api/auth/sign-in-methods')
    expect(methods.json.data).toMatchObject({ password: false, passkeys: 1 })
  })

  it('refuses a body the IAM would refuse with 400 before calling it', async () => {
    const b = browserLike(stack.gateway.url)
    expect((await b.call('/api/auth/passkey-signup/start', { method: 'POST', body: { email: 'a@example.com' } })).status).toBe(400)
    expect((await b.call('/api/auth/passkey-signup/options', { method: 'POST', body: { email: 'a@example.com', code: '12' } })).status).toBe(400)
    expect((await b.call('/api/auth/passkey-signup/finish', { method: 'POST', body: { ceremonyId: 'x', credential: { id: 'x' } } })).status).toBe(400)
  })
})
