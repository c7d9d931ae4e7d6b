import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, setCookieValue, signupUser, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { codeOf, isVerificationMail, linkQueryOf, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'
import { signupConfirmed } from '../helpers/confirm-email'
import { authed, enrolTotp, secondFactor, totpCode, WIDE_LOGIN } from './second-factor-http'

const FIXED_BODY = '{"ok":true,"message":"If an account exists for this address, a sign-in mail has been sent."}'
const CODE_FAILURES = 3

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      ...WIDE_LOGIN,
      rate_limiters: { ...WIDE_LOGIN.rate_limiters, emailSignIn: { points: 1000, duration: 3600, blockDuration: 3600 }, mailbox: { points: 1000, duration: 3600, blockDuration: 0 } },
      email: { siteName: 'Acme' },
      signIn: { emailLink: true, emailCode: true },
      // more link attempts than the address's budget, so the budget is what the lock test meets
      magic_links: { attempts: 10 },
      secondFactor: { accountFailures: { failures: CODE_FAILURES, windowMs: 900_000, lockMs: 900_000 } },
    },
    env: { SMTP_URL: smtp.url },
  })
}, 180_000)
afterAll(async () => {
  await iam?.stop()
  await smtp?.stop()
})

const ask = (client: Client, email: string, method: 'link' | 'code') => call(iam, 'POST', '/auth/email-sign-in', { client, body: { email, method } })
const withLink = (client: Client, query: string) => call(iam, 'POST', `/auth/email-sign-in/link${query}`, { client })
const withCode = (client: Client, email: string, code: string) => call(iam, 'POST', '/auth/email-sign-in/code', { client, body: { email, code } })

const isSignInMail = (mail: ParsedMail) => (mail.subject ?? '').includes('sign-in link') && !isVerificationMail(mail)
let seen = 0
/** The newest sign-in mail to `email` after the ones a test saw already. */
async function signInMail(email: string): Promise<ParsedMail> {
  const mail = await smtp.waitForMail((m) => recipients(m).includes(email) && isSignInMail(m) && smtp.mails.indexOf(m) >= seen)
  seen = smtp.mails.indexOf(mail) + 1
  return mail
}

async function metadataOf(res: Response, client: Client, email: string): Promise<Json> {
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(200)
  const session: Session = { ...client, email, password: '', accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
  return (await (await authed(iam, session, 'GET', '/secret/accesstoken/metadata')).json()) as Json
}

describe('POST /auth/email-sign-in', () => {
  it('answers the same bytes for a known and an unknown address and mails each, the unknown one the way to sign up', async () => {
    const user = await signupUser(iam)
    const ghost = uniqueEmail('ghost')
    const unknown = await ask(user, ghost, 'link')
    const known = await ask(user, user.email, 'link')
    expect([unknown.status, known.status]).toEqual([200, 200])
    expect(await unknown.text()).toBe(FIXED_BODY)
    expect(await known.text()).toBe(FIXED_BODY)
    const mail = await signInMail(user.email)
    expect(mail.text).toContain('/auth/email-sign-in?token=')
    expect(mail.text).toContain('reason=EMAIL_SIGN_IN&')
    const none = await smtp.waitForMail((m) => recipients(m).includes(ghost))
    expect(none.subject).toBe('Acme: no account uses this address')
    expect(none.text).toContain('Someone asked Acme for a sign-in mail for this address, but no account there uses it.')
    expect(none.text).toContain('/signup')
    expect(none.text).not.toContain('token=')
  })

  it('refuses a method the configuration leaves off with a declared code', async () => {
    const off = await startIam({ config: PROXY_CONFIG })
    try {
      const client = await newDevice(off)
      const res = await call(off, 'POST', '/auth/email-sign-in', { client, body: { email: uniqueEmail(), method: 'link' } })
      expect(res.status).toBe(403)
      expect(((await res.json()) as Json).code).toBe('email_sign_in_disabled')
      const methods = (await (await call(off, 'GET', '/auth/email-sign-in', { client })).json()) as Json
      expect(methods.data).toEqual({ link: false, code: false })
    } finally {
      await off.stop()
    }
  }, 180_000)
})

describe('POST /auth/email-sign-in/link', () => {
  it('signs in once in the browser that asked, confirms the address, and refuses a replay', async () => {
    const user = await signupUser(iam)
    const browser = await newDevice(iam, { ip: '198.51.100.20' })
    await ask(browser, user.email, 'link')
    const query = linkQueryOf(await signInMail(user.email))
    const first = await withLink(browser, query)
    const claims = await metadataOf(first, browser, user.email)
    expect(claims.emailVerified).toBe(true)
    const replay = await withLink(browser, query)
    expect(replay.status).toBe(400)
    expect(((await replay.json()) as Json).code).toBe('link_used')
  })

  it('refuses the link in another browser without using it, and the code from the same mail works there', async () => {
    const user = await signupUser(iam)
    const asking = await newDevice(iam, { ip: '198.51.100.21' })
    const other = await newDevice(iam, { ip: '198.51.100.22' })
    await ask(asking, user.email, 'link')
    const mail = await signInMail(user.email)
    const elsewhere = await withLink(other, linkQueryOf(mail))
    expect(elsewhere.status).toBe(403)
    const body = (await elsewhere.json()) as Json
    expect(body.code).toBe('email_sign_in_other_device')
    expect(body.error).toContain('code')
    // still live: the code of the same mail, typed in the browser that asked
    await metadataOf(await withCode(asking, user.email, codeOf(mail)), asking, user.email)
  })

  it('asks an account with a second factor for its step, then signs in with it', async () => {
    const user = await signupConfirmed(iam, smtp)
    const { secret } = await enrolTotp(iam, user)
    const browser = await newDevice(iam, { ip: '198.51.100.23' })
    await ask(browser, user.email, 'link')
    const res = await withLink(browser, linkQueryOf(await signInMail(user.email)))
    const body = (await res.json()) as Json
    expect(res.status).toBe(200)
    expect(body.accessToken).toBeUndefined()
    const { challenge } = body.secondFactor as { challenge: string }
    await metadataOf(await secondFactor(iam, browser, challenge, totpCode(secret, 1)), browser, user.email)
  })
})

describe('POST /auth/email-sign-in/code', () => {
  it('signs in on another device than the one that asked with the mailed code', async () => {
    const user = await signupUser(iam)
    const asking = await newDevice(iam, { ip: '198.51.100.30' })
    const phone = await newDevice(iam, { ip: '198.51.100.31' })
    await ask(asking, user.email, 'code')
    const mail = await signInMail(user.email)
    expect(mail.text).not.toContain('token=')
    await metadataOf(await withCode(phone, user.email, codeOf(mail)), phone, user.email)
  })

  it('locks code entry after the address spent its failure budget, the right code included', async () => {
    const user = await signupUser(iam)
    const client = await newDevice(iam, { ip: '198.51.100.32' })
    await ask(client, user.email, 'code')
    const code = codeOf(await signInMail(user.email))
    const wrong = code === '0000000' ? '1111111' : '0000000'
    const statuses: number[] = []
    for (let i = 0; i < CODE_FAILURES; i++) statuses.push((await withCode(client, user.email, wrong)).status)
    expect(statuses).toEqual([401, 401, 429])
    const right = await withCode(client, user.email, code)
    expect(right.status).toBe(429)
    expect(((await right.json()) as Json).code).toBe('code_entry_locked')
  })

  it('answers an unknown address as a known one, lock included', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.33' })
    const ghost = uniqueEmail('ghost')
    await ask(client, ghost, 'code')
    const answers: Array<[number, unknown]> = []
    for (let i = 0; i < CODE_FAILURES + 1; i++) {
      const res = await withCode(client, ghost, '1234567')
      answers.push([res.status, ((await res.json()) as Json).code])
    }
    expect(answers).toEqual([
      [401, 'code_invalid'],
      [401, 'code_invalid'],
      [429, 'code_entry_locked'],
      [429, 'code_entry_locked'],
    ])
  })
})
