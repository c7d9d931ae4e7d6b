import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, PROXY_CONFIG, signupUser } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'
import { flushedLogs } from '../helpers/logs'
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

async function challenge(ip: string) {
  const user = await signupUser(iam, { client: { ip } })
  const other = await newDevice(iam, { ip })
  expect((await authedGet(iam, user, '/secret/data', { canary: other.canary })).status).toBe(202)
  const mail = await smtp.waitForMail((m) => recipients(m).includes(user.email) && !isVerificationMail(m))
  return { user, other, mail }
}

describe('adaptive MFA abuse cases', () => {
  it('bans the device that sends markup as the code (403 banned)', async () => {
    const { other, mail } = await challenge('192.0.2.41')
    const res = await call(iam, 'POST', `/auth/verify-mfa${linkQueryOf(mail)}`, { client: other, body: { code: '<script>alert(1)</script>' } })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
    const after = await call(iam, 'POST', `/auth/verify-mfa${linkQueryOf(mail)}`, { client: other, body: { code: codeOf(mail) } })
    expect(after.status).toBe(403)
  })

  it('answers 400 for an expired link, preview and submit', async () => {
    const { other, mail } = await challenge('192.0.2.42')
    await advanceClock(iam, 3000) // past the 2 s life, whatever the JWT exp rounding to seconds
    const get = await call(iam, 'GET', `/auth/verify-mfa${linkQueryOf(mail)}`, { client: other })
    expect(get.status).toBe(400)
    expect(await get.json()).toEqual({ ok: false, date: expect.any(String), error: 'Link expired', code: 'link_expired' })
    const post = await call(iam, 'POST', `/auth/verify-mfa${linkQueryOf(mail)}`, { client: other, body: { code: codeOf(mail) } })
    expect(post.status).toBe(400)
  })

  it('keeps the code out of the subject and out of the logs', async () => {
    const { mail } = await challenge('192.0.2.43')
    expect(mail.subject).not.toContain(codeOf(mail))
    const logs = (await flushedLogs(iam)).join('\n')
    expect(logs).not.toContain(codeOf(mail))
    expect(logs).not.toMatch(/token=/)
  })
})
