import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, setCookieValue, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { codeOf, linkQueryOf, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: { ...PROXY_CONFIG, rate_limiters: { emails: { points: 4, duration: 3600, blockDuration: 3600 } } },
    env: { SMTP_URL: smtp.url },
  })
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

async function start(s: Session, reason: string, body: unknown = {}): Promise<{ res: Response; body: Json; mail: ParsedMail }> {
  const res = await authed(s, 'POST', `/custom/mfa/${reason}`, body)
  const json = (await res.json()) as Json
  if (res.status !== 200) throw new Error(`start answered ${res.status}: ${JSON.stringify(json)}`)
  const mail = await smtp.waitForMail((m) => recipients(m).includes(s.email) && (m.text ?? '').includes(`reason=${reason}&`))
  return { res, body: json, mail }
}

async function applyTokens(s: Session, res: Response): Promise<Session> {
  const body = (await res.json()) as Json
  expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
  return { ...s, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

describe('POST /custom/mfa/:reason', () => {
  it('mails a link and code to the signed-in user and answers the flow metadata', async () => {
    const user = await signupUser(iam)
    const { body, mail } = await start(user, 'PAYMENT_CONFIRM', { note: 'Pay 50% of "invoice" #42 & a < b' })
    expect(body).toEqual({
      ok: true,
      date: expect.any(String),
      data: { reason: 'PAYMENT_CONFIRM', expiresAt: expect.any(String), sentTo: `${user.email[0]}***@example.com` },
    })
    expect(Date.parse((body.data as Json).expiresAt as string)).toBeGreaterThan(Date.now())
    expect(mail.subject).not.toMatch(/\d{7}/)
    expect(mail.text).toContain('Pay 50% of "invoice" #42 & a < b')
    expect(mail.html).toContain('Pay 50% of &#34;invoice&#34; #42 &#38; a &#60; b')
  })

  it('answers 400 for a malformed or reserved reason and for a bad body', async () => {
    const user = await signupUser(iam)
    for (const reason of ['pay', 'AB', 'MAGIC_LINK_MFA_CHECKS', 'PASSWORD_RESET', 'PAY-NOW']) {
      const res = await authed(user, 'POST', `/custom/mfa/${reason}`, {})
      expect(res.status).toBe(400)
      expect(((await res.json()) as Json).error).toBe('Invalid reason')
    }
    expect((await authed(user, 'POST', '/custom/mfa/PAY_NOW', { note: 'x'.repeat(201) })).status).toBe(400)
    expect((await authed(user, 'POST', '/custom/mfa/PAY_NOW', { other: 1 })).status).toBe(400)
  })

  it('answers 401 without authentication', async () => {
    const user = await signupUser(iam)
    const res = await call(iam, 'POST', '/custom/mfa/PAY_NOW', { client: user, body: {} })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Missing Bearer token', code: 'access_token_missing' })
  })

  it('rate limits the mails of one user (429 with retry)', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.99' } })
    for (let i = 0; i < 4; i++) expect((await authed(user, 'POST', `/custom/mfa/LIMIT_${i}`, {})).status).toBe(200)
    const res = await authed(user, 'POST', '/custom/mfa/LIMIT_X', {})
    expect(res.status).toBe(429)
    const body = (await res.json()) as Json
    expect(body).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) })
    expect(res.headers.get('retry-after')).toBe(String(body.retry))
  })
})

describe('GET and POST /auth/verify-custom-mfa', () => {
  it('previews, then confirms with the code and issues new tokens; the link is single use', async () => {
    let user = await signupUser(iam)
    const { mail } = await start(user, 'ACCOUNT_DELETE', { note: 'delete everything' })
    const query = linkQueryOf(mail)
    const preview = await authed(user, 'GET', `/auth/verify-custom-mfa${query}`)
    expect(preview.status).toBe(200)
    expect(await preview.json()).toEqual({
      ok: true,
      date: expect.any(String),
      data: { link: 'Custom MFA', reason: 'ACCOUNT_DELETE', expiresAt: expect.any(String), note: 'delete everything' },
    })
    const res = await authed(user, 'POST', `/auth/verify-custom-mfa${query}`, { code: codeOf(mail) })
    expect(res.status).toBe(200)
    user = await applyTokens(user, res)
    expect((await authed(user, 'GET', '/secret/data')).status).toBe(200)
    const again = await authed(user, 'POST', `/auth/verify-custom-mfa${query}`, { code: codeOf(mail) })
    expect(again.status).toBe(400)
    expect(await again.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link already used', code: 'link_used' })
  })

  it('answers 401 for a wrong code', async () => {
    const user = await signupUser(iam)
    const { mail } = await start(user, 'PAYMENT_CONFIRM')
    const wrong = codeOf(mail) === '1111111' ? '2222222' : '1111111'
    const res = await authed(user, 'POST', `/auth/verify-custom-mfa${linkQueryOf(mail)}`, { code: wrong })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid or expired code', code: 'code_invalid' })
  })

  it('starting another flow does not cancel the first one', async () => {
    const user = await signupUser(iam)
    const first = await start(user, 'FLOW_ONE')
    await start(user, 'FLOW_TWO')
    const res = await authed(user, 'POST', `/auth/verify-custom-mfa${linkQueryOf(first.mail)}`, { code: codeOf(first.mail) })
    expect(res.status).toBe(200)
    await applyTokens(user, res)
  })

  it("refuses another user's link (400) and a change_email link (400)", async () => {
    const owner = await signupUser(iam)
    const other = await signupUser(iam)
    const { mail } = await start(owner, 'PAYMENT_CONFIRM')
    const res = await authed(other, 'POST', `/auth/verify-custom-mfa${linkQueryOf(mail)}`, { code: codeOf(mail) })
    expect(res.status).toBe(400)
    const change = await start(owner, 'change_email')
    const wrongRoute = await authed(owner, 'POST', `/auth/verify-custom-mfa${linkQueryOf(change.mail)}`, { code: codeOf(change.mail) })
    expect(wrongRoute.status).toBe(400)
  })

  it('requires authentication (401)', async () => {
    const user = await signupUser(iam)
    const { mail } = await start(user, 'PAYMENT_CONFIRM')
    const res = await call(iam, 'POST', `/auth/verify-custom-mfa${linkQueryOf(mail)}`, { client: user, body: { code: codeOf(mail) } })
    expect(res.status).toBe(401)
  })

  it('lets exactly one of 20 parallel confirmations succeed', async () => {
    const user = await signupUser(iam)
    const { mail } = await start(user, 'PAYMENT_CONFIRM')
    const query = linkQueryOf(mail)
    const results = await Promise.all(Array.from({ length: 20 }, () => authed(user, 'POST', `/auth/verify-custom-mfa${query}`, { code: codeOf(mail) })))
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    expect(results.filter((r) => r.status >= 500)).toHaveLength(0)
  })
})
