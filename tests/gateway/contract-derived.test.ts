/**
 * The BFF checks what it sends the IAM with the IAM's own route table (iam/contract): a schema
 * changed there changes what both apps accept. The limits are read from the table here, never
 * written down again, and the gateway runs against a recording stand-in for the IAM so "refused
 * before any IAM call" is observable.
 */
// store-independent: the gateway runs against a recording stand-in for the IAM, so no store is reached
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ROUTES } from '../../iam/contract/routes'
import { startFakeIam, type FakeIam } from '../helpers/fake-iam'
import { setupGateway } from '../helpers/nuxt-gateway'
import { browserLike } from './bff-harness'

let iam: FakeIam
beforeAll(async () => {
  iam = await startFakeIam()
})
afterAll(async () => {
  await iam?.stop()
})
const gateway = await setupGateway({ config: () => ({ iam: { url: iam.url, hmac: iam.hmac }, cookieSecret: 'contract-test-cookie-secret-0123456789abcd' }) })
beforeEach(() => {
  iam.requests.length = 0
})

const DOMAIN = '@example.com'
const emailOfLength = (length: number) => `${'a'.repeat(length - DOMAIN.length)}${DOMAIN}`

/** The longest email the IAM's POST /login schema accepts, found by asking the schema. */
function loginEmailMaxLength(): number {
  const accepts = (length: number) => ROUTES.login.body.safeParse({ email: emailOfLength(length), password: 'pw' }).success
  let length = DOMAIN.length + 1
  while (accepts(length + 1) && length < 100_000) length++
  return length
}

/** A signed-in browser as far as the BFF can tell: a session cookie and a fresh-looking access token. */
function signedInBrowser() {
  const b = browserLike(gateway.url)
  const now = Math.floor(Date.now() / 1000)
  const payload = Buffer.from(JSON.stringify({ sub: '1', iat: now, exp: now + 900 })).toString('base64url')
  b.jar.set('session', 'fake-session')
  b.jar.set('__Secure-a', `e30.${payload}.sig`)
  return b
}

describe('BFF input checks come from the IAM route table', () => {
  it("accepts a login email of exactly the table's maximum length and refuses one more with 400 before any IAM call", async () => {
    const max = loginEmailMaxLength()
    expect(max).toBeLessThan(100_000)
    const b = browserLike(gateway.url)

    const over = await b.call('/api/auth/login', { method: 'POST', body: { email: emailOfLength(max + 1), password: 'pw' } })
    expect(over.status).toBe(400)
    expect(over.json).toMatchObject({ ok: false, fields: { email: expect.any(String) } })
    expect(iam.requests.filter((r) => r.path === '/login')).toEqual([])

    await b.call('/api/auth/login', { method: 'POST', body: { email: emailOfLength(max), password: 'pw' } })
    const forwarded = iam.requests.filter((r) => r.method === 'POST' && r.path === '/login')
    expect(forwarded.map((r) => r.body)).toEqual([{ email: emailOfLength(max), password: 'pw' }])
    expect(forwarded[0]?.hmacValid).toBe(true)
  })

  it("forwards only the table's fields of a login body, never the BFF's own (returnTo) or unknown ones", async () => {
    const b = browserLike(gateway.url)
    await b.call('/api/auth/login', { method: 'POST', body: { email: 'a@example.com', password: 'pw', returnTo: '/tokens', admin: true } })
    expect(iam.requests.filter((r) => r.path === '/login').map((r) => r.body)).toEqual([{ email: 'a@example.com', password: 'pw' }])
  })

  it("passes a custom-MFA reason to the IAM exactly when the IAM route's params schema accepts it, and refuses the rest with 400 first", async () => {
    const params = ROUTES.customMfa.params
    const reasons = ['PAYMENT_CONFIRM', 'change_email', 'AB', 'A'.repeat(64), 'A'.repeat(65), 'payment', 'CHANGE-EMAIL', 'PASSWORD_RESET', 'MAGIC_LINK_MFA_CHECKS']
    const accepted = reasons.filter((reason) => params.safeParse({ reason }).success)
    // both outcomes are exercised, whatever the table says
    expect(accepted.length).toBeGreaterThan(0)
    expect(accepted.length).toBeLessThan(reasons.length)
    for (const reason of reasons) {
      iam.requests.length = 0
      const res = await signedInBrowser().call(`/api/auth/custom-mfa/${reason}`, { method: 'POST', body: {} })
      const reached = iam.requests.some((r) => r.path === `/custom/mfa/${reason}`)
      expect({ reason, reached }).toEqual({ reason, reached: accepted.includes(reason) })
      if (!reached) expect({ reason, status: res.status, body: res.json }).toEqual({ reason, status: 400, body: { ok: false, error: 'Unknown action.', code: 'validation_failed' } })
    }
  })
})
