/**
 * The BFF routes of sign-in by email against the real IAM (config signIn on): the link in the
 * browser that asked, refused in another one, the code in any; tokens only ever as cookies.
 */
// store-independent: the gateway keeps no store of its own; the link and code flow runs on both stores in tests/iam/email-sign-in.test.ts
import { describe, expect, it } from 'vitest'
import { mailTo } from '../helpers/confirm-email'
import { codeOf, linkQueryOf, type ParsedMail } from '../helpers/smtp'
import { browserLike, freshEmail, PASSWORD, setupStack } from './bff-harness'

const stack = await setupStack({ signIn: { emailLink: true, emailCode: true } })

const FIXED = { ok: true, message: 'If an account exists for this address, a sign-in mail has been sent.' }
const isSignInMail = (mail: ParsedMail) => (mail.text ?? '').includes('reason=EMAIL_SIGN_IN') || (mail.subject ?? '').includes('sign-in link')

async function account() {
  const email = freshEmail('email-sign-in')
  const signup = await browserLike(stack.gateway.url).call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'E', termsConsent: 'on' } })
  expect(signup.status, signup.text).toBe(201)
  return email
}

describe('sign-in by email through the BFF', () => {
  it('says which ways are offered', async () => {
    const res = await browserLike(stack.gateway.url).call('/api/auth/email-sign-in')
    expect(res.status).toBe(200)
    expect(res.json.data).toEqual({ link: true, code: true })
  })

  it('signs in with the link in the browser that asked, refuses it elsewhere, and never hands out a token', async () => {
    const email = await account()
    const asking = browserLike(stack.gateway.url)
    const sent = await asking.call('/api/auth/email-sign-in', { method: 'POST', body: { email, method: 'link' } })
    expect(sent.status, sent.text).toBe(200)
    expect(sent.json).toEqual(FIXED)
    const query = linkQueryOf(await mailTo({ dataDir: stack.iam.dataDir }, email, isSignInMail))

    const other = browserLike(stack.gateway.url)
    await other.call('/api/auth/email-sign-in')
    const elsewhere = await other.call(`/api/auth/email-sign-in/link${query}`, { method: 'POST' })
    expect(elsewhere.status).toBe(403)
    expect(elsewhere.json.code).toBe('email_sign_in_other_device')
    expect(other.jar.has('session')).toBe(false)

    const done = await asking.call(`/api/auth/email-sign-in/link${query}`, { method: 'POST' })
    expect(done.status, done.text).toBe(200)
    expect(done.json).toEqual({ ok: true, date: expect.any(String), signedIn: true })
    expect(done.text).not.toContain('accessToken')
    expect(asking.jar.has('session')).toBe(true)
    const replay = await asking.call(`/api/auth/email-sign-in/link${query}`, { method: 'POST' })
    expect(replay.status).toBe(400)
    expect(replay.json.code).toBe('link_used')
  })

  it('signs in with the mailed code and answers an unknown address as a known one', async () => {
    const email = await account()
    const b = browserLike(stack.gateway.url)
    const ghost = await b.call('/api/auth/email-sign-in', { method: 'POST', body: { email: freshEmail('ghost'), method: 'code' } })
    const known = await b.call('/api/auth/email-sign-in', { method: 'POST', body: { email, method: 'code' } })
    expect([ghost.status, ghost.text]).toEqual([known.status, known.text])
    const code = codeOf(await mailTo({ dataDir: stack.iam.dataDir }, email, isSignInMail))
    const wrong = await b.call('/api/auth/email-sign-in/code', { method: 'POST', body: { email, code: code === '0000000' ? '1111111' : '0000000' } })
    expect(wrong.status).toBe(401)
    expect(wrong.json.code).toBe('code_invalid')
    const done = await b.call('/api/auth/email-sign-in/code', { method: 'POST', body: { email, code } })
    expect(done.status, done.text).toBe(200)
    expect(done.json).toEqual({ ok: true, date: expect.any(String), signedIn: true })
    expect(b.jar.has('session')).toBe(true)
  })
})
