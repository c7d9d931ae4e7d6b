/**
 * The BFF's session handling against the real IAM: tokens only in HttpOnly cookies, one shared
 * refresh per browser, revoked sessions ending on the next request, 429 passed through, and the
 * API-token actions end to end (verified by a resource server through the IAM's public route).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIamClient } from '../../iam/client/iam-client'
import { advanceClock, GATEWAY_CLOCK_ENV } from '../helpers/clock'
import { FRAME_HEADERS } from '../helpers/frame-headers'
import { flushedLogs } from '../helpers/logs'
import { codeOf, linkQueryOf, recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'
import { browserLike, freshEmail, hmac, PASSWORD, setupStack } from './bff-harness'

let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(async () => {
  await smtp?.stop()
})
const stack = await setupStack(() => ({
  email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } },
  rate_limiters: {
    forgotPassword: { points: 2, duration: 3600, blockDuration: 3600 },
    // every test signs up a fresh user from 127.0.0.1
    signup: { points: 100, duration: 60, blockDuration: 1 },
    login: { points: 100, duration: 60, blockDuration: 1 },
    // the default burst of 1 request/s (docs/configuration.md) would make back-to-back test actions 429
    apiTokensLimiters: { generalUnionLimiter: { burst: { points: 1000, duration: 1, blockDuration: 1 }, slow: { points: 1000, duration: 60, blockDuration: 1 } } },
  },
}))

const mailTo = (email: string, path: string) => smtp.waitForMail((m) => recipients(m).includes(email) && (m.text ?? '').includes(path), 15_000)

async function signedUpBrowser() {
  const b = browserLike(stack.gateway.url)
  const email = freshEmail()
  const res = await b.call('/api/auth/signup', {
    method: 'POST',
    body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Test User', termsConsent: 'on' },
  })
  expect(res.status, res.text).toBe(201)
  return { b, email, res }
}

/** The IAM's refresh requests so far, every one in (flushedLogs): a count, before and after. */
const refreshCalls = async () => (await flushedLogs(stack.iam)).filter((line) => line.includes('"path":"/auth/user/refresh-session"')).length

describe('cookies and bodies', () => {
  it('signup sets the access token only as an HttpOnly Secure SameSite=Strict cookie, never in the body', async () => {
    const { res, b } = await signedUpBrowser()
    expect(res.json).toMatchObject({ ok: true, signedIn: true })
    expect(res.text).not.toMatch(/accessToken|accessIat|eyJ/)
    const access = res.setCookies.find((c) => c.startsWith('__Secure-a='))
    expect(access).toMatch(/; HttpOnly/i)
    expect(access).toMatch(/; Secure/i)
    expect(access).toMatch(/; SameSite=Strict/i)
    expect(access).toMatch(/; Path=\//i)
    expect(res.setCookies.some((c) => c.startsWith('a-iat='))).toBe(true)
    // the IAM's own cookies are forwarded: the device cookie from /check and the refresh token
    expect(b.jar.get('canary_id')).toMatch(/^[0-9a-f]{64}$/)
    expect(b.jar.get('session')).toBeTruthy()
  })

  it('reports the signed-in session without exposing a token', async () => {
    const { b } = await signedUpBrowser()
    const res = await b.call('/api/auth/session')
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ authenticated: true })
    expect(typeof res.json.userId).toBe('string')
    expect(res.text).not.toMatch(/accessToken|eyJ/)
  })

  // server/utils/direct-lane.ts: a page's script asks on the direct lane, a navigation takes the page path
  it('answers the session read of a page\'s script as the page path answers the same read navigated to', async () => {
    const { b } = await signedUpBrowser()
    const scripted = await b.call('/api/auth/session')
    const navigated = await b.call('/api/auth/session', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    expect(scripted.status).toBe(200)
    expect(navigated.status).toBe(scripted.status)
    expect(navigated.json).toEqual(scripted.json)
    for (const name of [...FRAME_HEADERS, 'content-type']) expect(navigated.headers.get(name), name).toBe(scripted.headers.get(name))
    expect(scripted.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('login through the BFF signs in; a wrong password is 401 with a message', async () => {
    const { email } = await signedUpBrowser()
    const b = browserLike(stack.gateway.url)
    const bad = await b.call('/api/auth/login', { method: 'POST', body: { email, password: 'not the password at all' } })
    expect(bad.status).toBe(401)
    expect(bad.json.ok).toBe(false)
    const good = await b.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })
    expect(good.status).toBe(200)
    expect(good.text).not.toMatch(/accessToken|eyJ/)
    expect((await b.call('/api/auth/session')).json.authenticated).toBe(true)
  })

  it('a no-JS sign-in redirects to a same-origin returnTo and to /account for an off-site one, dot segments and encoded slashes included', async () => {
    const { email } = await signedUpBrowser()
    const cases = [
      ['/tokens', '/tokens'],
      ['//evil.example/x', '/account'],
      // one normalisation turns these into //evil.example/x (the browser then leaves the site)
      ['/.//evil.example/x', '/account'],
      ['/..//evil.example/x', '/account'],
      ['/%2F%2Fevil.example/x', '/account'],
    ]
    for (const [returnTo, expected] of cases) {
      const b = browserLike(stack.gateway.url)
      await b.call('/login', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
      const res = await b.call('/api/auth/login', {
        method: 'POST',
        body: new URLSearchParams({ email, password: PASSWORD, returnTo, _csrf: b.jar.get('__Host-csrf') ?? '' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' },
      })
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toBe(expected)
      expect(b.jar.get('__Secure-a')).toBeTruthy()
    }
  })
})

describe('refresh', () => {
  it('refreshes through the IAM when the access cookie has expired', async () => {
    const { b } = await signedUpBrowser()
    const oldSession = b.jar.get('session')
    b.jar.delete('__Secure-a')
    const res = await b.call('/api/auth/session')
    expect(res.json.authenticated).toBe(true)
    expect(b.jar.get('__Secure-a')).toBeTruthy()
    expect(b.jar.get('session')).not.toBe(oldSession)
  })

  it('concurrent requests of one browser share one refresh', async () => {
    const { b } = await signedUpBrowser()
    b.jar.delete('__Secure-a')
    const before = await refreshCalls()
    const results = await Promise.all([1, 2, 3, 4].map(() => b.call('/api/auth/session')))
    for (const r of results) expect(r.json.authenticated).toBe(true)
    const sessions = new Set(results.map((r) => r.setCookies.find((c) => c.startsWith('session='))?.split(';')[0]))
    expect(sessions.size).toBe(1)
    expect((await refreshCalls()) - before).toBe(1)
  })

  it('a request of the same browser that arrives just after the shared refresh settled reuses it; another device with the old cookie still goes to the IAM', async () => {
    const { b } = await signedUpBrowser()
    b.jar.delete('__Secure-a')
    const late = browserLike(stack.gateway.url)
    const thief = browserLike(stack.gateway.url)
    for (const [k, v] of b.jar) {
      late.jar.set(k, v)
      thief.jar.set(k, v)
    }
    thief.jar.set('canary_id', 'f'.repeat(64))
    const before = await refreshCalls()
    const first = await b.call('/api/auth/session')
    expect(first.json.authenticated).toBe(true)
    // same session and device cookies as the first request, sent after its refresh settled
    const again = await late.call('/api/auth/session')
    expect(again.json.authenticated).toBe(true)
    expect(late.jar.get('session')).toBe(b.jar.get('session'))
    expect((await refreshCalls()) - before).toBe(1)
    // the old session cookie from another device is not served from the gateway: the IAM decides
    await thief.call('/api/auth/session')
    expect((await refreshCalls()) - before).toBe(2)
  })

  it('a revoked session stops working on the next request, says that it ended, and its cookies are cleared', async () => {
    const { b } = await signedUpBrowser()
    const other = browserLike(stack.gateway.url)
    for (const [k, v] of b.jar) other.jar.set(k, v)
    expect((await other.call('/api/auth/logout', { method: 'POST' })).status).toBe(200)
    const res = await b.call('/api/auth/session')
    // `ended`: the page tells the person their session ended, rather than showing a bare sign-in form
    expect(res.json).toEqual({ authenticated: false, ended: true })
    expect(b.jar.has('__Secure-a')).toBe(false)
    expect((await b.call('/api/tokens')).status).toBe(401)
  })

  it('a session ended from another device says why, to the page and on the sign-in page the server renders', async () => {
    const { b, email } = await signedUpBrowser()
    const signedIn = async () => {
      const other = browserLike(stack.gateway.url)
      expect((await other.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })).status).toBe(200)
      return other
    }
    const [phone, tablet] = [await signedIn(), await signedIn()]
    expect((await b.call('/api/auth/sessions/revoke-others', { method: 'POST', body: {} })).status).toBe(200)
    expect((await phone.call('/api/auth/session')).json).toEqual({ authenticated: false, ended: true, why: 'elsewhere' })
    const page = await tablet.call('/login', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    expect(page.status).toBe(200)
    expect(page.text).toContain('This session was signed out from another device.')
    expect(tablet.jar.has('session')).toBe(false)
  })

  it('the server sends a signed-in browser from /login and / on: to a same-origin returnTo, else the account', async () => {
    const { b } = await signedUpBrowser()
    const page = (path: string) => b.call(path, { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    for (const [path, expected] of [
      ['/login', '/account'],
      ['/', '/account'],
      ['/login?returnTo=%2Ftokens', '/tokens'],
      ['/login?returnTo=%2F%2Fevil.example', '/account'],
      ['/login?returnTo=https%3A%2F%2Fevil.example%2F', '/account'],
    ] as const) {
      const res = await page(path)
      expect(res.status, path).toBe(302)
      expect(res.headers.get('location'), path).toBe(expected)
    }
    // the sign-up page and any API call are left alone
    expect((await page('/signup')).status).toBe(200)
  })

  it('sign-out ends the session and clears the cookies', async () => {
    const { b } = await signedUpBrowser()
    const res = await b.call('/api/auth/logout', { method: 'POST' })
    expect(res.status).toBe(200)
    expect(res.json.ok).toBe(true)
    expect(b.jar.has('__Secure-a')).toBe(false)
    expect(b.jar.has('session')).toBe(false)
    expect((await b.call('/api/auth/session')).json).toEqual({ authenticated: false })
  })
})

// before 'states passed to the page': its 429 test exhausts the per-IP forgot-password limiter
describe('account recovery through the BFF', () => {
  it('a reset with revokeApiTokens (the page\'s default) ends the API tokens; the notice names none raw', async () => {
    const { b, email } = await signedUpBrowser()
    const created = await b.call('/api/tokens', { method: 'POST', body: { name: 'before-reset', privilege: 'full' } })
    expect(created.status, created.text).toBe(201)
    const { rawApiKey } = created.json.data as { rawApiKey: string }
    const verifier = createIamClient({ baseUrl: stack.iam.url, hmac })
    const verify = () => verifier.request({ method: 'GET', path: '/api/public/verify', query: { privilege: 'full' }, headers: { 'x-api-key': rawApiKey } })
    expect((await verify()).status).toBe(200)
    expect((await b.call('/api/auth/forgot-password', { method: 'POST', body: { email } })).status).toBe(200)
    const query = linkQueryOf(await mailTo(email, '/reset-password?'))
    const newPassword = 'another long passphrase 77'
    const res = await b.call(`/api/auth/reset-password${query}`, { method: 'POST', body: { password: newPassword, confirmedPassword: newPassword, revokeApiTokens: true } })
    expect(res.status, res.text).toBe(200)
    expect((await verify()).status).toBe(401)
    const notice = await mailTo(email, 'API token was revoked')
    expect(notice.text).not.toContain(rawApiKey)
  })
})

describe('states passed to the page', () => {
  it('429 reaches the page with Retry-After and a numeric retry', async () => {
    const b = browserLike(stack.gateway.url)
    let last: Awaited<ReturnType<typeof b.call>> | undefined
    for (let i = 0; i < 3; i++) last = await b.call('/api/auth/forgot-password', { method: 'POST', body: { email: freshEmail('forgot') } })
    expect(last?.status).toBe(429)
    expect(last?.json).toMatchObject({ ok: false, error: 'Too many requests' })
    expect(typeof last?.json.retry).toBe('number')
    expect(last?.headers.get('retry-after')).toBe(String(last?.json.retry))
  })

  it('a no-JS form refused with 429 comes back to its page with the wait, so the page can say when to try again', async () => {
    const b = browserLike(stack.gateway.url)
    await b.call('/forgot-password', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    let location: string | null = null
    for (let i = 0; i < 3; i++) {
      const res = await b.call('/api/auth/forgot-password', {
        method: 'POST',
        body: new URLSearchParams({ email: freshEmail('forgot-nojs'), _csrf: b.jar.get('__Host-csrf') ?? '' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' },
      })
      expect(res.status).toBe(303)
      location = res.headers.get('location')
    }
    expect(location).toMatch(/^\/forgot-password\?error=rate_limited&retry=\d+$/)
  })

  it('a signed-out browser gets 401 signedOut from authenticated routes', async () => {
    const res = await browserLike(stack.gateway.url).call('/api/tokens')
    expect(res.status).toBe(401)
    expect(res.json).toMatchObject({ ok: false, signedOut: true })
  })
})

describe('custom MFA', () => {
  it('starts the email change: 200 with the masked address the link went to', async () => {
    const { b, email } = await signedUpBrowser()
    const res = await b.call('/api/auth/custom-mfa/change_email', { method: 'POST', body: {} })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({ ok: true, data: { reason: 'change_email', sentTo: `${email[0]}***@example.com` } })
  })

  it('an asked email change waits for the new address: the page reads it masked, cancels it, and the link then confirms nothing', async () => {
    const { b, email } = await signedUpBrowser()
    expect((await b.call('/api/auth/custom-mfa/change_email', { method: 'POST', body: {} })).status).toBe(200)
    const mail = await mailTo(email, 'reason=change_email&')
    const newEmail = freshEmail('pending')
    const asked = await b.call(`/api/auth/email${linkQueryOf(mail)}`, { method: 'POST', body: { code: codeOf(mail), newEmail } })
    expect(asked.status, asked.text).toBe(200)
    const pending = await b.call('/api/auth/email/pending')
    expect(pending.json).toMatchObject({ ok: true, data: { pending: { sentTo: `${newEmail[0]}***@example.com`, expiresAt: expect.any(String) } } })
    const link = linkQueryOf(await mailTo(newEmail, 'reason=CONFIRM_EMAIL_CHANGE&'))
    const cancelled = await b.call('/api/auth/email/cancel', { method: 'POST' })
    expect(cancelled.json).toMatchObject({ ok: true, data: { cancelled: true } })
    expect((await b.call('/api/auth/email/pending')).json).toMatchObject({ data: { pending: null } })
    const confirm = await b.call(`/api/auth/verify-email${link}`, { method: 'POST' })
    expect(confirm.status).toBe(400)
    expect(confirm.json).toMatchObject({ code: 'link_used' })
    const other = browserLike(stack.gateway.url)
    expect((await other.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })).status).toBe(200)
  })
})

describe('MFA states', () => {
  it('an anomaly reaches the page as an MFA state (202), and link + code sign the browser in again', async () => {
    const { b, email } = await signedUpBrowser()
    const firefox = { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0' }
    const session = await b.call('/api/auth/session', { headers: firefox })
    expect(session.json).toMatchObject({ authenticated: false, mfa: true })
    const tokens = await b.call('/api/tokens', { headers: firefox })
    expect(tokens.status).toBe(202)
    expect(tokens.json).toMatchObject({ ok: false, mfa: true })
    const mail = await mailTo(email, '/auth/mfa')
    const query = linkQueryOf(mail)
    expect((await b.call(`/api/auth/mfa${query}`, { headers: firefox })).status).toBe(200)
    const verified = await b.call(`/api/auth/mfa${query}`, { method: 'POST', body: { code: codeOf(mail) }, headers: firefox })
    expect(verified.status, verified.text).toBe(200)
    expect(verified.json).toMatchObject({ ok: true, signedIn: true })
    expect(verified.text).not.toMatch(/accessToken|eyJ/)
    expect((await b.call('/api/auth/session', { headers: firefox })).json.authenticated).toBe(true)
  })

  it('a custom action: preview, then a wrong code is 401 and the session stays; the right code confirms', async () => {
    const { b, email } = await signedUpBrowser()
    expect((await b.call('/api/auth/custom-mfa/PAYMENT_CONFIRM', { method: 'POST', body: { note: 'Invoice 42' } })).status).toBe(200)
    const mail = await mailTo(email, '/auth/confirm')
    const query = linkQueryOf(mail)
    expect((await b.call(`/api/auth/confirm${query}`)).status).toBe(200)
    const code = codeOf(mail)
    const wrong = await b.call(`/api/auth/confirm${query}`, { method: 'POST', body: { code: code === '0000000' ? '1111111' : '0000000' } })
    expect(wrong.status).toBe(401)
    expect(wrong.json.signedOut).toBeUndefined()
    expect(b.jar.get('__Secure-a')).toBeTruthy()
    const right = await b.call(`/api/auth/confirm${query}`, { method: 'POST', body: { code } })
    expect(right.status, right.text).toBe(200)
    expect(right.text).not.toMatch(/accessToken|eyJ/)
  })
})

describe('email verification through the BFF', () => {
  it('the session reports emailVerified false until the mailed link is posted through the BFF', async () => {
    const { b, email } = await signedUpBrowser()
    expect((await b.call('/api/auth/session')).json).toMatchObject({ authenticated: true, email, emailVerified: false })
    const query = linkQueryOf(await mailTo(email, '/auth/verify-email?'))
    // on the browser that signed up, the link verifies as it is
    expect((await b.call(`/api/auth/verify-email${query}`)).status).toBe(200)
    const res = await b.call(`/api/auth/verify-email${query}`, { method: 'POST' })
    expect(res.status, res.text).toBe(200)
    expect((await b.call('/api/auth/session')).json).toMatchObject({ authenticated: true, emailVerified: true })
    expect((await b.call('/api/auth/resend-verification', { method: 'POST' })).status).toBe(400)
  })

  it('on another browser the link asks for the password (403 passwordRequired) and verifies with it, keeping the first browser signed in', async () => {
    const { b, email } = await signedUpBrowser()
    const query = linkQueryOf(await mailTo(email, '/auth/verify-email?'))
    const other = browserLike(stack.gateway.url)
    const plain = await other.call(`/api/auth/verify-email${query}`, { method: 'POST' })
    expect(plain.status).toBe(403)
    expect(plain.json).toMatchObject({ ok: false, passwordRequired: true })
    const wrong = await other.call(`/api/auth/verify-email/password${query}`, { method: 'POST', body: { password: 'not the password at all' } })
    expect(wrong.status).toBe(401)
    expect(wrong.json.signedOut).toBeUndefined()
    const res = await other.call(`/api/auth/verify-email/password${query}`, { method: 'POST', body: { password: PASSWORD } })
    expect(res.status, res.text).toBe(200)
    expect((await b.call('/api/auth/session')).json).toMatchObject({ authenticated: true, emailVerified: true })
  })
})

describe('API tokens through the BFF', () => {
  it('create -> verify -> rotate -> restrict -> re-scope -> revoke', async () => {
    const { b } = await signedUpBrowser()
    const verifier = createIamClient({ baseUrl: stack.iam.url, hmac })
    const verify = (key: string, privilege: string) =>
      verifier.request<{ ok: boolean; reason?: string }>({ method: 'GET', path: '/api/public/verify', query: { privilege }, headers: { 'x-api-key': key } })

    const created = await b.call('/api/tokens', { method: 'POST', body: { name: 'ci', privilege: 'full' } })
    expect(created.status, created.text).toBe(201)
    const { rawApiKey, rawPublicId } = created.json.data as { rawApiKey: string; rawPublicId: string }
    expect(rawApiKey).toMatch(/^api_/)
    expect((await verify(rawApiKey, 'full')).status).toBe(200)

    const list = await b.call('/api/tokens')
    expect(list.status).toBe(200)
    const entry = (list.json.data as { tokenList: Array<Record<string, unknown>> }).tokenList[0]!
    expect(entry).toMatchObject({ name: 'ci', public_identifier: rawPublicId, usage_count: 1, privilege_type: 'full' })
    const identity = { tokenId: entry.id, publicIdentifier: rawPublicId, name: 'ci' }

    const meta = await b.call('/api/tokens/metadata', { method: 'POST', body: identity })
    expect(meta.status).toBe(200)
    expect(meta.json.data).toMatchObject({ tokenMeta: { name: 'ci', usageCount: 1 } })

    const rotated = await b.call('/api/tokens/rotate', { method: 'POST', body: identity })
    expect(rotated.status, rotated.text).toBe(200)
    const newKey = (rotated.json.data as { newRawToken: string }).newRawToken
    expect((await verify(rawApiKey, 'full')).status).toBe(401)
    expect((await verify(newKey, 'full')).status).toBe(200)

    const fresh = (await b.call('/api/tokens')).json.data as { tokenList: Array<Record<string, unknown>> }
    const current = fresh.tokenList.find((t) => t.name === 'ci')!
    const id2 = { tokenId: current.id, publicIdentifier: current.public_identifier, name: 'ci' }

    expect((await b.call('/api/tokens/ip-restriction', { method: 'POST', body: { ...id2, ipv4: ['198.51.100.9'] } })).status).toBe(200)
    expect((await verify(newKey, 'full')).body).toMatchObject({ ok: false, reason: 'Invalid Host' })
    expect((await b.call('/api/tokens/ip-restriction', { method: 'POST', body: id2 })).status).toBe(200)
    expect((await verify(newKey, 'full')).status).toBe(200)

    expect((await b.call('/api/tokens/privilege', { method: 'POST', body: { ...id2, newPrivilege: 'demo' } })).status).toBe(200)
    expect((await verify(newKey, 'full')).status).toBe(401)
    expect((await verify(newKey, 'demo')).status).toBe(200)

    const revoked = await b.call('/api/tokens/revoke', { method: 'POST', body: id2 })
    expect(revoked.status).toBe(200)
    expect((await verify(newKey, 'demo')).status).toBe(401)
  })

  it('revoke-all ends every token of the browser\'s user after an explicit confirm', async () => {
    const { b } = await signedUpBrowser()
    const keys: string[] = []
    for (const name of ['one', 'two']) {
      const created = await b.call('/api/tokens', { method: 'POST', body: { name, privilege: 'demo' } })
      expect(created.status, created.text).toBe(201)
      keys.push((created.json.data as { rawApiKey: string }).rawApiKey)
    }
    const verifier = createIamClient({ baseUrl: stack.iam.url, hmac })
    const verify = (key: string) => verifier.request({ method: 'GET', path: '/api/public/verify', query: { privilege: 'demo' }, headers: { 'x-api-key': key } })
    expect((await b.call('/api/tokens/revoke-all', { method: 'POST', body: {} })).status).toBe(400)
    for (const key of keys) expect((await verify(key)).status).toBe(200)
    const res = await b.call('/api/tokens/revoke-all', { method: 'POST', body: { confirm: true } })
    expect(res.status, res.text).toBe(200)
    expect(res.json.data).toMatchObject({ revokedCount: 2 })
    for (const key of keys) expect((await verify(key)).status).toBe(401)
  })

  it('refuses a privilege outside the five with 400 before reaching the IAM', async () => {
    const { b } = await signedUpBrowser()
    const res = await b.call('/api/tokens', { method: 'POST', body: { name: 'x', privilege: 'root' } })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ ok: false, fields: { privilege: expect.any(String) } })
  })
})

// the file's last scenario: the gateway restarts (test-utils runs one per file) with its test
// clock in front of an IAM issuing 6 s access tokens
describe('rotation before expiry', () => {
  const short = stack
  beforeAll(async () => {
    await stack.restart({ jwt: { access_tokens: { expiresInMs: 6000 } } }, {}, { gateway: GATEWAY_CLOCK_ENV })
  })

  it('refreshes an access token in its last quarter of life (the IAM refreshThreshold), before it expires', async () => {
    const b = browserLike(short.gateway.url)
    const signup = await b.call('/api/auth/signup', {
      method: 'POST',
      body: { email: freshEmail('rotate'), password: PASSWORD, confirmedPassword: PASSWORD, name: 'Rotating', termsConsent: 'on' },
    })
    expect(signup.status).toBe(201)
    const session = b.jar.get('session')
    const access = b.jar.get('__Secure-a')
    // Fresh token: no refresh.
    expect((await b.call('/api/auth/session')).json.authenticated).toBe(true)
    expect(b.jar.get('session')).toBe(session)
    // 4.8 s of 6 s gone by the gateway's clock: less than 25 % left whatever the second rounding of iat/exp.
    await advanceClock(short.gateway, 4800)
    const res = await b.call('/api/auth/session')
    expect(res.json.authenticated).toBe(true)
    expect(b.jar.get('session')).not.toBe(session)
    expect(b.jar.get('__Secure-a')).not.toBe(access)
  })
})
