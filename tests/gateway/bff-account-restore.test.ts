/**
 * The sign-in page's way back to an account scheduled for deletion, through the BFF
 * (server/api/auth/login.post.ts, restore-link.post.ts, server/utils/bff/restore-proof.ts): the
 * IAM's restore proof goes into an HttpOnly cookie and never into a body the page reads; "Send the
 * restore link" trades it once; the no-JavaScript form posts land on the sign-in page with the date
 * and then with the notice. The real IAM (the gateway project's shared one) and its outbox.
 */
// store-independent: the gateway keeps no store of its own; the restore flow runs on both stores in tests/iam/account-restore.security.test.ts
import { describe, expect, it } from 'vitest'
import { mailTo } from '../helpers/confirm-email'
import { linkQueryOf } from '../helpers/smtp'
import { browserLike, confirmEmailThrough, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

const stack = await setupStackOnSharedIam()
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const FORM_POST = { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' }

/** A browser that signed up, confirmed its address and confirmed the deletion of its account. */
async function deletedAccount(): Promise<string> {
  const b = browserLike(stack.gateway.url)
  const email = freshEmail('restore')
  const signup = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Ada', termsConsent: 'on' } })
  expect(signup.status, signup.text).toBe(201)
  await confirmEmailThrough(b, stack.iam, email)
  expect((await b.call('/api/auth/delete-account', { method: 'POST' })).status).toBe(202)
  const confirm = linkQueryOf(await mailTo(stack.iam, email, (m) => (m.text ?? '').includes('reason=DELETE_ACCOUNT&')))
  const confirmed = await b.call(`/api/auth/delete-account/confirm${confirm}`, { method: 'POST' })
  expect(confirmed.status, confirmed.text).toBe(200)
  return email
}

describe('the sign-in page and an account scheduled for deletion', () => {
  it('keeps the restore proof in an HttpOnly cookie, out of the body, and trades it once for the mail', async () => {
    const email = await deletedAccount()
    const b = browserLike(stack.gateway.url)
    const login = await b.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })
    expect(login.status).toBe(403)
    expect(login.json).toMatchObject({ ok: false, deletionPending: true, dueAt: expect.any(String) })
    expect(login.json).not.toHaveProperty('restoreProof')
    expect(login.text).not.toContain(b.jar.get('__Host-restore'))
    const cookie = login.setCookies.find((line) => line.startsWith('__Host-restore='))
    expect(cookie).toMatch(/^__Host-restore=[A-Za-z0-9_-]{43};/)
    for (const attribute of ['Path=/', 'HttpOnly', 'Secure', 'SameSite=Strict']) expect(cookie!.split('; ')).toContain(attribute)
    expect(Number(/Max-Age=(\d+)/.exec(cookie!)?.[1])).toBeLessThanOrEqual(600)
    expect(b.jar.has('__Secure-a')).toBe(false)

    const sent = await b.call('/api/auth/restore-link', { method: 'POST' })
    expect(sent.status, sent.text).toBe(200)
    expect(sent.json).toMatchObject({ ok: true, data: { sentTo: `${email[0]}***@example.com`, dueAt: login.json.dueAt } })
    // spent: the cookie is gone, and the page is told to sign in again
    expect(b.jar.has('__Host-restore')).toBe(false)
    const again = await b.call('/api/auth/restore-link', { method: 'POST' })
    expect(again.status).toBe(400)
    expect(again.json.error).toBe('This request for the restore link has expired or was already used. Sign in again to ask for it.')
    await mailTo(stack.iam, email, (m) => /restore your account before it is erased/.test(m.subject ?? ''))
  })

  it('works without JavaScript: the form post comes back to /login with the date, and the restore form with the notice', async () => {
    const email = await deletedAccount()
    const b = browserLike(stack.gateway.url)
    await b.call('/login', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    const csrf = b.jar.get('__Host-csrf') ?? ''
    const login = await b.call('/api/auth/login', { method: 'POST', body: form({ email, password: PASSWORD, _csrf: csrf }), headers: FORM_POST })
    expect(login.status).toBe(303)
    const back = new URL(login.headers.get('location')!, stack.gateway.url)
    expect(back.pathname).toBe('/login')
    expect(back.searchParams.get('error')).toBe('deletion_pending')
    expect(Date.parse(back.searchParams.get('due') ?? '')).toBeGreaterThan(Date.now())

    const page = await b.call(`${back.pathname}${back.search}`, { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    // Vue's server rendering marks fragments with comments (<!--[-->): not part of what is read
    const visible = page.text.replace(/<!--[[\]]-->/g, '')
    expect(visible).toMatch(/This account is scheduled for deletion on <time datetime="[^"]+"[^>]*>\d{1,2} [A-Z][a-z]+ \d{4}<\/time>\./)
    expect(page.text).toContain('action="/api/auth/restore-link"')

    const sent = await b.call('/api/auth/restore-link', { method: 'POST', body: form({ _csrf: csrf }), headers: FORM_POST })
    expect(sent.status).toBe(303)
    expect(sent.headers.get('location')).toBe('/login?restore=sent')
    const notice = await b.call('/login?restore=sent', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    expect(notice.text).toContain('We sent the restore link to the account’s email address.')
    // the same form again has nothing left to send with
    const again = await b.call('/api/auth/restore-link', { method: 'POST', body: form({ _csrf: csrf }), headers: FORM_POST })
    expect(again.headers.get('location')).toBe('/login?error=restore_expired')
  })

  it('answers a wrong password as for any address: 401, no cookie', async () => {
    const email = await deletedAccount()
    const b = browserLike(stack.gateway.url)
    const login = await b.call('/api/auth/login', { method: 'POST', body: { email, password: 'not the password at all 1' } })
    expect(login.status).toBe(401)
    expect(login.setCookies.some((line) => line.startsWith('__Host-restore='))).toBe(false)
  })
})
