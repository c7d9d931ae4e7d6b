/**
 * The BFF routes of two-step sign-in against the real IAM: TOTP enrolment as a signed-in browser,
 * the second-factor step of sign-in (tokens only as cookies), and the CSRF rule on each new route.
 */
// store-independent: the gateway keeps no store of its own; two-step sign-in runs on both stores in tests/iam/totp.test.ts and second-factor.security.test.ts
import { Secret, TOTP } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { browserLike, confirmEmailThrough, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

// the gateway project's shared IAM (its sign-up and sign-in limits are wide)
const stack = await setupStackOnSharedIam()

const codeAt = (secret: string, stepOffset: number) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + stepOffset * 30_000 })

async function enrolledBrowser() {
  const b = browserLike(stack.gateway.url)
  const email = freshEmail('totp')
  const signup = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'T', termsConsent: 'on' } })
  expect(signup.status, signup.text).toBe(201)
  await confirmEmailThrough(b, stack.iam, email)
  const setup = await b.call('/api/auth/totp/setup', { method: 'POST' })
  expect(setup.status, setup.text).toBe(200)
  const { secret } = setup.json.data as { secret: string }
  const enable = await b.call('/api/auth/totp/enable', { method: 'POST', body: { code: codeAt(secret, 0) } })
  expect(enable.status, enable.text).toBe(200)
  return { b, email, secret, recoveryCodes: (enable.json.data as { recoveryCodes: string[] }).recoveryCodes }
}

describe('two-step sign-in through the BFF', () => {
  it('enrols, then signs in with the password step and the second-factor step; tokens only ever as cookies', async () => {
    const { email, secret } = await enrolledBrowser()
    const status = await browserLike(stack.gateway.url).call('/api/auth/totp')
    expect(status.status).toBe(401)

    const b = browserLike(stack.gateway.url)
    const login = await b.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })
    expect(login.status).toBe(200)
    expect(login.json).toEqual({ ok: true, date: expect.any(String), secondFactor: { challenge: expect.any(String), methods: ['totp', 'recovery_code'] } })
    expect(b.jar.has('session')).toBe(false)
    const challenge = (login.json.secondFactor as { challenge: string }).challenge
    const done = await b.call('/api/auth/second-factor', { method: 'POST', body: { challenge, code: codeAt(secret, 1) } })
    expect(done.status, done.text).toBe(200)
    expect(done.json).toEqual({ ok: true, date: expect.any(String), signedIn: true })
    expect(done.text).not.toContain('accessToken')
    expect(b.jar.has('session')).toBe(true)
    const after = await b.call('/api/auth/totp')
    expect(after.json.data).toEqual({ enabled: true, recoveryCodesLeft: 10 })
  })

  it('relays a wrong code as 401 and a dead step as restart', async () => {
    const { email } = await enrolledBrowser()
    const b = browserLike(stack.gateway.url)
    const login = await b.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })
    const challenge = (login.json.secondFactor as { challenge: string }).challenge
    const wrong = await b.call('/api/auth/second-factor', { method: 'POST', body: { challenge, code: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ' } })
    expect(wrong.status).toBe(401)
    expect(wrong.json).toMatchObject({ ok: false, error: 'Invalid code' })
    const gone = await b.call('/api/auth/second-factor', { method: 'POST', body: { challenge: 'A'.repeat(43), code: '123456' } })
    expect(gone.status).toBe(401)
    expect(gone.json).toMatchObject({ ok: false, restart: true })
    const bad = await b.call('/api/auth/second-factor', { method: 'POST', body: { challenge, code: '<script>' } })
    expect(bad.status).toBe(400)
  })

  it('refuses every new unsafe route without the X-CSRF header or from another origin, before the IAM is called', async () => {
    const { b } = await enrolledBrowser()
    const routes = ['/api/auth/totp/setup', '/api/auth/totp/enable', '/api/auth/totp/disable', '/api/auth/totp/recovery-codes', '/api/auth/second-factor', '/api/auth/confirm/second-factor', '/api/auth/email/second-factor']
    for (const path of routes) {
      const noHeader = await b.call(path, { method: 'POST', body: { code: '123456' }, headers: { 'x-csrf': '' } })
      expect(noHeader.status, path).toBe(403)
      const crossSite = await b.call(path, { method: 'POST', body: { code: '123456' }, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
      expect(crossSite.status, path).toBe(403)
      expect(crossSite.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
    }
    // still enrolled: nothing above reached the IAM
    expect((await b.call('/api/auth/totp')).json.data).toEqual({ enabled: true, recoveryCodesLeft: 10 })
  })

  it('makes 10 new recovery codes: the old ones stop working', async () => {
    const { b, recoveryCodes } = await enrolledBrowser()
    const res = await b.call('/api/auth/totp/recovery-codes', { method: 'POST' })
    expect(res.status, res.text).toBe(200)
    const fresh = (res.json.data as { recoveryCodes: string[] }).recoveryCodes
    expect(fresh).toHaveLength(10)
    expect(fresh).not.toContain(recoveryCodes[0])
    expect((await b.call('/api/auth/totp/disable', { method: 'POST', body: { code: recoveryCodes[0] } })).status).toBe(400)
    expect((await b.call('/api/auth/totp/disable', { method: 'POST', body: { code: fresh[0] } })).status).toBe(200)
  })

  it('turns TOTP off with a recovery code', async () => {
    const { b, recoveryCodes } = await enrolledBrowser()
    const res = await b.call('/api/auth/totp/disable', { method: 'POST', body: { code: recoveryCodes[0] } })
    expect(res.status, res.text).toBe(200)
    expect((await b.call('/api/auth/totp')).json.data).toEqual({ enabled: false, recoveryCodesLeft: 0 })
  })
})
