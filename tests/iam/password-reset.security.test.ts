import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'
import { flushedLogs } from '../helpers/logs'
import { linkQueryOf, isVerificationMail, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'

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

async function resetMail(user: Session): Promise<ParsedMail> {
  const res = await call(iam, 'POST', '/auth/forgot-password', { client: user, body: { email: user.email } })
  expect(res.status).toBe(200)
  return smtp.waitForMail((m) => recipients(m).includes(user.email) && !isVerificationMail(m))
}

describe('password reset abuse cases', () => {
  it('answers 400 for an expired link', async () => {
    const user = await signupUser(iam)
    const query = linkQueryOf(await resetMail(user))
    await advanceClock(iam, 3000) // past the 2 s life, whatever the JWT exp rounding to seconds
    const get = await call(iam, 'GET', `/auth/reset-password${query}`, { client: user })
    expect(get.status).toBe(400)
    expect(await get.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link expired', code: 'link_expired' })
    const post = await call(iam, 'POST', `/auth/reset-password${query}`, { client: user, body: { password: 'a long enough passphrase', confirmedPassword: 'a long enough passphrase' } })
    expect(post.status).toBe(400)
  })

  it('bans the device for markup in a free-text field (403 banned)', async () => {
    const user = await signupUser(iam, { client: { ip: '192.0.2.99' } })
    const res = await call(iam, 'POST', '/auth/forgot-password', { client: user, body: { email: '<script>alert(1)</script>@example.com' } })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
  })

  it('never logs a reset link or a code when SMTP is configured', async () => {
    expect((await flushedLogs(iam)).join('\n')).not.toMatch(/token=/)
  })
})
