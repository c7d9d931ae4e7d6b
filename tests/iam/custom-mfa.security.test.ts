import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'
import { codeOf, linkQueryOf, isVerificationMail, recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  // links live 2 s here; the expiry tests move the IAM's clock past that
  iam = await startIam({ config: { ...PROXY_CONFIG, magic_links: { expiresInMs: 2000 } }, env: { SMTP_URL: smtp.url, ...CLOCK_ENV } })
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

const authed = (s: Session, method: string, path: string, body?: unknown) =>
  call(iam, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

describe('custom MFA abuse cases', () => {
  it('bans the device for markup in the note (403 banned) and mails nothing', async () => {
    const user = await signupUser(iam, { client: { ip: '192.0.2.31' } })
    const res = await authed(user, 'POST', '/custom/mfa/PAYMENT_CONFIRM', { note: '<img src=x onerror=alert(1)>' })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
    expect(smtp.mails.filter((m) => recipients(m).includes(user.email) && !isVerificationMail(m))).toHaveLength(0)
  })

  it('answers 400 for an expired link, preview and submit', async () => {
    const user = await signupUser(iam)
    expect((await authed(user, 'POST', '/custom/mfa/PAYMENT_CONFIRM', {})).status).toBe(200)
    const mail = await smtp.waitForMail((m) => recipients(m).includes(user.email) && !isVerificationMail(m))
    await advanceClock(iam, 3000) // past the 2 s life, whatever the JWT exp rounding to seconds
    const get = await authed(user, 'GET', `/auth/verify-custom-mfa${linkQueryOf(mail)}`)
    expect(get.status).toBe(400)
    expect(await get.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link expired', code: 'link_expired' })
    const post = await authed(user, 'POST', `/auth/verify-custom-mfa${linkQueryOf(mail)}`, { code: codeOf(mail) })
    expect(post.status).toBe(400)
  })
})

describe('custom MFA with the SMTP server down', () => {
  let down: IamServer
  beforeAll(async () => {
    // port 9 on loopback: nothing listens, every delivery fails at once
    down = await startIam({ config: PROXY_CONFIG, env: { SMTP_URL: 'smtp://127.0.0.1:9' } })
  }, 180_000)
  afterAll(() => down?.stop())

  it('answers a clear 500 and leaves no live link behind', async () => {
    const user = await signupUser(down)
    const res = await call(down, 'POST', '/custom/mfa/PAYMENT_CONFIRM', { client: user, cookies: { session: user.refreshToken }, bearer: user.accessToken, body: {} })
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Could not send the confirmation email; try again later', code: 'mail_failed' })
    const again = await call(down, 'POST', '/custom/mfa/PAYMENT_CONFIRM', { client: user, cookies: { session: user.refreshToken }, bearer: user.accessToken, body: {} })
    expect(again.status).toBe(500)
  })

  it('adaptive MFA answers 500 every time, never a stuck 202', async () => {
    const user = await signupUser(down)
    const other = await call(down, 'GET', '/check', { client: { ip: user.ip, ua: user.ua } })
    const canary = /canary_id=([^;]+)/.exec(other.headers.getSetCookie().join(';'))![1]
    for (let i = 0; i < 2; i++) {
      const res = await call(down, 'GET', '/secret/data', { client: { ...user, canary }, cookies: { session: user.refreshToken }, bearer: user.accessToken })
      expect(res.status).toBe(500)
    }
  })
})
