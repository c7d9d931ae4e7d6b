/**
 * Sign-up with a passkey and no password (docs/accounts.md, "Accounts without a password";
 * iam/features/users/passkey-signup.ts): the address proved by a mailed code, then a WebAuthn
 * registration made by the software authenticator (tests/helpers/webauthn-authenticator.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, ownSecurityEvents, PROXY_CONFIG, setCookieValue, signupBody, signupUser, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { codeOf, recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { loginOptions, loginVerify, registerOptions, registerPasskey, type CreationOptions } from './passkeys-http'
import { authed, WIDE_LOGIN } from './second-factor-http'

const CODE_FAILURES = 3
const FIXED_BODY = '{"ok":true,"message":"A mail is on its way to this address: type the code it holds to go on."}'

let iam: IamServer
let smtp: SmtpCapture
beforeAll(async () => {
  smtp = await startSmtp()
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      ...WIDE_LOGIN,
      rate_limiters: { ...WIDE_LOGIN.rate_limiters, mailbox: { points: 1000, duration: 3600, blockDuration: 0 } },
      email: { siteName: 'Acme' },
      // more tries per code than the address's budget, so the budget is what the lock test meets
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

const start = (client: Client, email: string, extra: Json = {}) => call(iam, 'POST', '/auth/passkey-signup/start', { client, body: { email, name: 'Ada', termsConsent: 'on', ...extra } })
const options = (client: Client, email: string, code: string) => call(iam, 'POST', '/auth/passkey-signup/options', { client, body: { email, code } })
const finish = (client: Client, ceremonyId: string, credential: unknown) =>
  call(iam, 'POST', '/auth/passkey-signup/finish', { client, body: { ceremonyId, credential, rememberUser: 'on' } })

const isCodeMail = (m: ParsedMail) => (m.subject ?? '') === 'Acme: your sign-up code'
const isExistsMail = (m: ParsedMail) => (m.subject ?? '') === 'Acme: you already have an account'
const mailTo = (email: string, kind: (m: ParsedMail) => boolean) => smtp.waitForMail((m) => recipients(m).includes(email) && kind(m))

/** start, the mailed code: the code (the address is new). */
async function codeFor(client: Client, email: string): Promise<string> {
  const res = await start(client, email)
  expect(res.status).toBe(200)
  return codeOf(await mailTo(email, isCodeMail))
}

/** start, code, options: the creation options and the ceremony id. */
async function ceremonyFor(client: Client, email: string): Promise<{ options: CreationOptions; ceremonyId: string }> {
  const code = await codeFor(client, email)
  const res = await options(client, email, code)
  const body = (await res.json()) as { data: { options: CreationOptions; ceremonyId: string } }
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body.data
}

async function sessionOf(res: Response, client: Client, email: string): Promise<Session> {
  const body = (await res.json()) as Json
  expect(res.status, JSON.stringify(body)).toBe(201)
  return { ...client, email, password: '', accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
}

/** A whole sign-up with a passkey: the session and the authenticator holding the passkey. */
async function signUpWithPasskey(client: Client, email = uniqueEmail('pk')) {
  const authenticator = new SoftAuthenticator()
  const ceremony = await ceremonyFor(client, email)
  const { passkey, credential } = authenticator.register(ceremony.options)
  const session = await sessionOf(await finish(client, ceremony.ceremonyId, credential), client, email)
  return { session, authenticator, passkey, email }
}

const methodsOf = async (s: Session) => ((await (await authed(iam, s, 'GET', '/auth/sign-in-methods')).json()) as { data: { password: boolean; passkeys: number } }).data

describe('signing up with a passkey', () => {
  it('creates an account with its address confirmed and no password that signs in with the passkey afterwards', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.31' })
    const email = uniqueEmail('pk')
    const ceremony = await ceremonyFor(device, email)
    expect(ceremony.options.user.name).toBe(email)
    expect(ceremony.options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' })
    expect(ceremony.options.excludeCredentials).toEqual([])
    const authenticator = new SoftAuthenticator()
    const { passkey, credential } = authenticator.register(ceremony.options)
    const res = await finish(device, ceremony.ceremonyId, credential)
    const session = await sessionOf(res, device, email)
    expect(await methodsOf(session)).toMatchObject({ password: false, passkeys: 1 })
    // the code proved the mailbox: what needs a confirmed address works at once, and no confirmation mail goes out
    const metadata = (await (await authed(iam, session, 'GET', '/secret/accesstoken/metadata')).json()) as Json
    expect(metadata.emailVerified).toBe(true)
    await registerOptions(iam, session)
    const events = await ownSecurityEvents(iam, session)
    expect(events.find((e) => e.type === 'signed_up')?.details).toMatchObject({ method: 'passkey', emailConfirmedBy: 'code' })

    const other = await newDevice(iam, { ip: '198.51.100.32' })
    const signIn = await loginVerify(iam, other, authenticator.assert(await loginOptions(iam, other), passkey))
    expect(signIn.status).toBe(200)
  })

  it('answers the same bytes for a known and an unknown address and mails a code only to the unknown one', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.33' })
    const known = await signupUser(iam, { client: { ip: '198.51.100.34' } })
    const unknown = uniqueEmail('new')
    const a = await start(device, unknown)
    const b = await start(device, known.email)
    expect([a.status, b.status]).toEqual([200, 200])
    expect(await a.text()).toBe(FIXED_BODY)
    expect(await b.text()).toBe(FIXED_BODY)
    const exists = await mailTo(known.email, isExistsMail)
    expect(exists.text).toContain('/login')
    expect(exists.text).not.toMatch(/\d{7}/)
    await mailTo(unknown, isCodeMail)
    expect(smtp.mails.some((m) => recipients(m).includes(known.email) && isCodeMail(m))).toBe(false)
  })

  it('spends the address budget with every wrong code and then locks code entry, the right code included', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.35' })
    const email = uniqueEmail('guess')
    const code = await codeFor(device, email)
    const wrong = code === '0000000' ? '1111111' : '0000000'
    for (let i = 0; i < CODE_FAILURES - 1; i++) {
      const res = await options(device, email, wrong)
      expect(res.status).toBe(401)
      expect(((await res.json()) as Json).code).toBe('code_invalid')
    }
    const last = await options(device, email, wrong)
    expect(last.status).toBe(429)
    expect(((await last.json()) as Json).code).toBe('code_entry_locked')
    const right = await options(device, email, code)
    expect(right.status).toBe(429)
  })

  it('locks an address that has no code exactly as one that has', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.36' })
    const email = uniqueEmail('nocode')
    const statuses: number[] = []
    for (let i = 0; i < CODE_FAILURES + 1; i++) statuses.push((await options(device, email, '1234567')).status)
    expect(statuses).toEqual([401, 401, 429, 429])
  })

  it('takes a code once: the second use of a right code is refused', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.37' })
    const email = uniqueEmail('replay')
    const code = await codeFor(device, email)
    const [a, b] = await Promise.all([options(device, email, code), options(device, email, code)])
    expect([a.status, b.status].sort()).toEqual([200, 401])
    expect((await options(device, email, code)).status).toBe(401)
  })

  it('makes one account of two concurrent finishes of one ceremony and refuses the other', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.38' })
    const email = uniqueEmail('race')
    const ceremony = await ceremonyFor(device, email)
    const authenticator = new SoftAuthenticator()
    const first = authenticator.register(ceremony.options).credential
    const second = authenticator.register(ceremony.options).credential
    const answers = await Promise.all([finish(device, ceremony.ceremonyId, first), finish(device, ceremony.ceremonyId, second)])
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses).toEqual([201, 400])
    const loser = answers.find((r) => r.status === 400)!
    expect(((await loser.json()) as Json).code).toBe('passkey_signup_ceremony_invalid')
    // the address has one account: a password sign-up with it is refused
    const again = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email) })
    expect(again.status).toBe(409)
  })

  it('finishes only on the device that asked for the options, and another device does not burn the ceremony', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.39' })
    const stranger = await newDevice(iam, { ip: '198.51.100.40' })
    const email = uniqueEmail('device')
    const ceremony = await ceremonyFor(device, email)
    const { credential } = new SoftAuthenticator().register(ceremony.options)
    const elsewhere = await finish(stranger, ceremony.ceremonyId, credential)
    expect(elsewhere.status).toBe(400)
    expect(((await elsewhere.json()) as Json).code).toBe('passkey_signup_ceremony_invalid')
    expect((await finish(device, ceremony.ceremonyId, credential)).status).toBe(201)
  })

  it('spends the ceremony on an answer that does not verify', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.41' })
    const email = uniqueEmail('badorigin')
    const ceremony = await ceremonyFor(device, email)
    const authenticator = new SoftAuthenticator()
    const bad = await finish(device, ceremony.ceremonyId, authenticator.register(ceremony.options, { origin: 'https://evil.example' }).credential)
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as Json).code).toBe('passkey_unverified')
    const retry = await finish(device, ceremony.ceremonyId, authenticator.register(ceremony.options).credential)
    expect(((await retry.json()) as Json).code).toBe('passkey_signup_ceremony_invalid')
  })

  it('answers 409 email_taken when the address got an account between the code and the finish', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.42' })
    const email = uniqueEmail('meanwhile')
    const ceremony = await ceremonyFor(device, email)
    expect((await call(iam, 'POST', '/signup', { client: device, body: signupBody(email) })).status).toBe(201)
    const res = await finish(device, ceremony.ceremonyId, new SoftAuthenticator().register(ceremony.options).credential)
    expect(res.status).toBe(409)
    expect(((await res.json()) as Json).code).toBe('email_taken')
  })
})

describe('an account whose only way in is its passkey', () => {
  it('cannot remove its last passkey until it sets a password', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.43' })
    const { session } = await signUpWithPasskey(device)
    const [listed] = ((await (await authed(iam, session, 'GET', '/auth/passkeys')).json()) as { data: { passkeys: { id: number }[] } }).data.passkeys
    const refused = await authed(iam, session, 'POST', '/auth/passkeys/delete', { id: listed!.id })
    expect(refused.status).toBe(409)
    expect(((await refused.json()) as Json).code).toBe('last_way_in')
    expect((await methodsOf(session)).passkeys).toBe(1)
    const set = await authed(iam, session, 'POST', '/auth/set-password', { password: 'correct horse battery staple 42', confirmedPassword: 'correct horse battery staple 42' })
    expect(set.status, await set.clone().text()).toBe(200)
    expect((await methodsOf(session)).password).toBe(true)
    const removed = await authed(iam, session, 'POST', '/auth/passkeys/delete', { id: listed!.id })
    expect(removed.status).toBe(200)
    // and the password now signs in
    const login = await call(iam, 'POST', '/login', { client: device, body: { email: session.email, password: 'correct horse battery staple 42' } })
    expect(login.status).toBe(200)
  })

  it('removes one of two passkeys and keeps the last', async () => {
    const device = await newDevice(iam, { ip: '198.51.100.44' })
    const { session } = await signUpWithPasskey(device)
    await registerPasskey(iam, session, new SoftAuthenticator())
    const ids = ((await (await authed(iam, session, 'GET', '/auth/passkeys')).json()) as { data: { passkeys: { id: number }[] } }).data.passkeys.map((p) => p.id)
    expect(ids).toHaveLength(2)
    expect((await authed(iam, session, 'POST', '/auth/passkeys/delete', { id: ids[0] })).status).toBe(200)
    expect((await authed(iam, session, 'POST', '/auth/passkeys/delete', { id: ids[1] })).status).toBe(409)
  })
})
