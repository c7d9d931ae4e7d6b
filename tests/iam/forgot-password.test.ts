import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupUser, uniqueEmail, type Client } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { waitForLog } from '../helpers/logs'
import { isVerificationMail, recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const FIXED_BODY = '{"ok":true,"message":"If an account exists for this address, a password reset link has been sent."}'

let iam: IamServer
let smtp: SmtpCapture
let device: Client
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      email: { siteName: 'Acme' },
      providers: [{ name: 'demo', useStandardProfile: true }],
      rate_limiters: { forgotPassword: { points: 30, duration: 3600, blockDuration: 3600 } },
    },
    env: { SMTP_URL: smtp.url },
  })
  device = await newDevice(iam)
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

const forgot = (email: unknown, client: Client = device) => call(iam, 'POST', '/auth/forgot-password', { client, body: { email } })

describe('POST /auth/forgot-password', () => {
  it('answers the same bytes for a known and an unknown address and mails each, the unknown one that no account uses it', async () => {
    const user = await signupUser(iam)
    const ghost = uniqueEmail('ghost')
    const unknown = await forgot(ghost)
    const known = await forgot(user.email)
    expect(unknown.status).toBe(200)
    expect(known.status).toBe(200)
    expect(await unknown.text()).toBe(FIXED_BODY)
    expect(await known.text()).toBe(FIXED_BODY)
    const mail = await smtp.waitForMail((m) => recipients(m).includes(user.email) && !isVerificationMail(m))
    expect(mail.subject).toBe('Acme: reset your password')
    expect(mail.text).toContain('/reset-password?token=')
    expect(mail.text).toContain('reason=PASSWORD_RESET&')
    // the same work after the answer for an address no account uses: a mail saying so, with no
    // link that does anything but open the sign-up page
    const none = await smtp.waitForMail((m) => recipients(m).includes(ghost))
    expect(none.subject).toBe('Acme: no account uses this address')
    expect(none.text).toContain('Someone asked Acme for a password reset link for this address, but no account there uses it.')
    expect(none.text).toContain('/signup')
    expect(none.text).not.toContain('token=')
    expect(none.text).not.toContain(ghost.split('@')[0]!)
  })

  it('tells an account without a password to sign in with its provider', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.77' })
    const email = uniqueEmail('oauth')
    const signin = await call(iam, 'POST', '/auth/OAuth/demo', { client, body: { sub: `sub-${email}`, email, email_verified: true, name: 'OAuth User' } })
    expect(signin.status).toBe(201)
    const res = await forgot(email, client)
    expect(await res.text()).toBe(FIXED_BODY)
    const mail = await smtp.waitForMail((m) => recipients(m).includes(email))
    expect(mail.subject).toBe('Acme: how to sign in')
    expect(mail.text).toContain('demo')
    expect(mail.text).not.toContain('token=')
  })

  it('answers 400 for a body without an address', async () => {
    const res = await call(iam, 'POST', '/auth/forgot-password', { client: device, body: { mail: 'x@example.com' } })
    expect(res.status).toBe(400)
  })

  it('rate limits per IP (429 with retry)', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.200' })
    const statuses: number[] = []
    for (let i = 0; i < 31; i++) statuses.push((await forgot(uniqueEmail('flood'), client)).status)
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
    expect(statuses[30]).toBe(429)
  })
})

describe('POST /auth/forgot-password with the SMTP server down', () => {
  let down: IamServer
  beforeAll(async () => {
    // port 9 on loopback: nothing listens, every delivery fails at once
    down = await startIam({ config: PROXY_CONFIG, env: { SMTP_URL: 'smtp://127.0.0.1:9' } })
  }, 180_000)
  afterAll(() => down?.stop())

  it('still answers 200 with the fixed body and leaves no live link behind', async () => {
    const user = await signupUser(down)
    const res = await call(down, 'POST', '/auth/forgot-password', { client: user, body: { email: user.email } })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(FIXED_BODY)
    await waitForLog(down, 'mail delivery failed')
  })
})
