/**
 * The breached-password check over HTTP, against the local range server: the base URL works with
 * or without a trailing slash, and a service that answers but not with a range (404, 500, a page
 * that is not the range format) refuses the password on every password-setting route even with
 * failOpen true; only an unreachable service fails open.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody, signupUser, uniqueEmail, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { flushedLogs, waitForLog } from '../helpers/logs'
import { startRangeServer, type RangeServer } from '../helpers/range-server'
import { linkQueryOf, recipients, startSmtp, type SmtpCapture } from '../helpers/smtp'

const BREACHED = 'breached passphrase from a dump'
const UNAVAILABLE = { ok: false, date: expect.any(String), error: 'Service unavailable', code: 'breach_check_unavailable', fields: { password: 'The password could not be checked; try again later' } }

let range: RangeServer
let smtp: SmtpCapture
/** rangeApiUrl without the trailing slash (http://127.0.0.1:<port>/range), failOpen true */
let noSlash: IamServer
/** rangeApiUrl with the trailing slash */
let slash: IamServer
beforeAll(async () => {
  range = await startRangeServer([BREACHED])
  smtp = await startSmtp()
  const config = (rangeApiUrl: string) => ({
    ...PROXY_CONFIG,
    password: { breachCheck: { enabled: true, rangeApiUrl, failOpen: true, timeoutMs: 2000 } },
    rate_limiters: { signup: { points: 100, duration: 600, blockDuration: 600 }, forgotPassword: { points: 100, duration: 3600, blockDuration: 3600 } },
  })
  ;[noSlash, slash] = await Promise.all([
    startIam({ config: config(range.url.replace(/\/$/, '')), env: { SMTP_URL: smtp.url } }),
    startIam({ config: config(range.url) }),
  ])
}, 240_000)
afterEach(() => range.misbehave(undefined))
afterAll(async () => {
  await Promise.all([noSlash?.stop(), slash?.stop()])
  await range?.stop()
  await smtp?.stop()
})

let n = 0
// a password the IAM has not checked before: its 5-minute range cache must not answer for it
const freshPassword = () => `fresh passphrase ${randomBytes(6).toString('hex')} ${++n}`

async function signup(iam: IamServer, password: string): Promise<Response> {
  const device = await newDevice(iam, { ip: `203.0.113.${100 + (++n % 100)}` })
  return call(iam, 'POST', '/signup', { client: device, body: signupBody(uniqueEmail('breach'), password) })
}

async function resetLinkQuery(user: Session): Promise<string> {
  const before = new Set(smtp.mails)
  const res = await call(noSlash, 'POST', '/auth/forgot-password', { client: user, body: { email: user.email } })
  expect(res.status).toBe(200)
  return linkQueryOf(await smtp.waitForMail((m) => !before.has(m) && recipients(m).includes(user.email) && /reset your password/.test(m.subject ?? '')))
}

const resetPassword = (query: string, user: Session, password: string) =>
  call(noSlash, 'POST', `/auth/reset-password${query}`, { client: user, body: { password, confirmedPassword: password } })

describe('breach check base URL', () => {
  it('refuses a breached password at signup when rangeApiUrl has no trailing slash', async () => {
    const res = await signup(noSlash, BREACHED)
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toEqual({ password: 'This password has appeared in a data breach; choose another one' })
    expect(range.requests.at(-1)?.path).toMatch(/^\/range\/[0-9A-F]{5}$/)
  })

  it('refuses a breached password at signup when rangeApiUrl ends with a slash', async () => {
    const res = await signup(slash, BREACHED)
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toEqual({ password: 'This password has appeared in a data breach; choose another one' })
  })
})

describe('a breach service that answers without a range refuses the password, even with failOpen', () => {
  for (const [what, how] of [
    ['404', { status: 404 }],
    ['500', { status: 500 }],
    ['200 with a body that is not the range format', { status: 200, body: '<html><body>Sign in to the hotel Wi-Fi</body></html>' }],
  ] as const) {
    it(`signup answers 503 when the service answers ${what}`, async () => {
      range.misbehave(how)
      const res = await signup(noSlash, freshPassword())
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual(UNAVAILABLE)
    })
  }

  for (const [what, how] of [
    ['404', { status: 404 }],
    ['500', { status: 500 }],
  ] as const) {
    it(`reset-password answers 503 when the service answers ${what}, and the link stays usable`, async () => {
      const user = await signupUser(noSlash, { client: { ip: '198.51.100.20' } })
      const query = await resetLinkQuery(user)
      range.misbehave(how)
      const refused = await resetPassword(query, user, freshPassword())
      expect(refused.status).toBe(503)
      expect(await refused.json()).toEqual({ ...UNAVAILABLE, error: 'The password could not be checked; try again later' })
      range.misbehave(undefined)
      expect((await resetPassword(query, user, freshPassword())).status).toBe(200)
    })
  }

  it('warns about the bad answer without logging the password or its hash prefix', async () => {
    range.misbehave({ status: 500 })
    const password = freshPassword()
    expect((await signup(noSlash, password)).status).toBe(503)
    const prefix = range.requests.at(-1)!.path.slice(-5)
    const warning = await waitForLog(noSlash, 'breach check failed: bad answer from the range API')
    expect((await flushedLogs(noSlash)).join('\n')).not.toContain(password)
    expect(warning).not.toContain(prefix)
  })
})

describe('an unreachable breach service with failOpen true', () => {
  it('lets signup through (connection dropped) and says the password was not checked', async () => {
    range.misbehave('drop-connection')
    const res = await signup(noSlash, freshPassword())
    expect(res.status).toBe(201)
    expect(((await res.json()) as Json).warnings).toEqual(['breach_check_skipped'])
  })

  it('lets a reset through and says the password was not checked', async () => {
    const user = await signupUser(noSlash, { client: { ip: '198.51.100.21' } })
    const query = await resetLinkQuery(user)
    range.misbehave('drop-connection')
    const res = await resetPassword(query, user, freshPassword())
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ ok: true, data: { message: expect.any(String) }, warnings: ['breach_check_skipped'] })
  })

  it('carries no warnings when the check ran', async () => {
    const res = await signup(noSlash, freshPassword())
    expect(res.status).toBe(201)
    expect(await res.json()).not.toHaveProperty('warnings')
  })
})
