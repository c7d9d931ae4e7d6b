/**
 * Text the database cannot store (NUL, lone UTF-16 surrogates) or that no field of ours allows
 * (control characters) is a 400 before any work, never a 500 from the database.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { call, CHROME_UA, newDevice, signupBody, signupUser, STRONG_PASSWORD, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam } from '../helpers/shared-iam'
import { manage } from './api-tokens-http'

const iam = sharedIam()
let device: Client
let user: Session
beforeAll(async () => {
  device = await newDevice(iam, { ip: '203.0.113.180' })
  user = await signupUser(iam, { client: { ip: '203.0.113.181' } })
})

const NUL = 'a\u0000b'
const LONE_SURROGATE = 'a\ud800b'
const CONTROL = 'a\u0007b'

/** The 400 of refused text in `field`: its sentence, and its issue as a code (iam/contract/field-issues.ts). */
const validationFailure = (field: string) => ({
  ok: false,
  date: expect.any(String),
  error: 'Validation failed',
  code: 'validation_failed',
  fields: { [field]: expect.any(String) },
  fieldIssues: { [field]: { code: 'invalid' } },
})
const authed = (path: string, body: unknown) => call(iam, 'POST', path, { client: user, cookies: { session: user.refreshToken }, bearer: user.accessToken, body })

/** Signs up `email` with valid values; 201 proves no account with that address existed. */
async function signupStatus(email: string): Promise<number> {
  return (await call(iam, 'POST', '/signup', { client: device, body: signupBody(email) })).status
}

describe('JSON bodies: NUL, control characters and lone surrogates', () => {
  it('POST /login answers 400 for a NUL in the email', async () => {
    const res = await call(iam, 'POST', '/login', { client: device, body: { email: `${NUL}@example.com`, password: STRONG_PASSWORD } })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual(validationFailure('email'))
  })

  for (const [label, bad] of [['a NUL', NUL], ['a lone surrogate', LONE_SURROGATE], ['a control character', CONTROL]] as const) {
    it(`POST /signup answers 400 for ${label} in the name and creates no account`, async () => {
      const email = uniqueEmail('hostile')
      const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email, STRONG_PASSWORD, { name: bad }) })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(validationFailure('name'))
      expect(await signupStatus(email)).toBe(201)
    })
  }

  it('POST /signup answers 400 for a NUL or a control character in the password and creates no account', async () => {
    for (const password of [`${STRONG_PASSWORD}\u0000`, `${STRONG_PASSWORD}\u001b`]) {
      const email = uniqueEmail('hostile-pw')
      const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email, password) })
      expect(res.status).toBe(400)
      expect(await signupStatus(email)).toBe(201)
    }
  })

  it('POST /signup keeps accepting Unicode letters and emoji in the name and password', async () => {
    const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(uniqueEmail('uni'), 'pässwörd 🔑 ünïcode ok', { name: 'Zoë 🚀 Ødegård' }) })
    expect(res.status).toBe(201)
  })

  it('answers 400 for a NUL in a key of the body', async () => {
    const res = await call(iam, 'POST', '/login', { client: device, body: { email: 'a@example.com', password: STRONG_PASSWORD, [NUL]: 1 } })
    expect(res.status).toBe(400)
  })

  for (const [label, bad] of [['a NUL', NUL], ['a lone surrogate', LONE_SURROGATE]] as const) {
    it(`POST /custom/mfa/:reason answers 400 for ${label} in the note`, async () => {
      const res = await authed('/custom/mfa/PAYMENT_CONFIRM', { note: bad })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(validationFailure('note'))
    })

    it(`POST /api/manage/new-token answers 400 Bad Request for ${label} in the name and creates no token`, async () => {
      const res = await manage(iam, user, 'new-token', { privilege: 'demo', name: bad })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ ok: false, date: expect.any(String), reason: 'Bad Request', code: 'bad_request' })
      const list = (await (await manage(iam, user, 'list-metadata')).json()) as { data: Json }
      expect(list.data.total).toBe(0)
    })

    it(`POST /auth/OAuth/:providerName answers 400 for ${label} in the sub or the name and creates no account`, async () => {
      for (const profile of [{ sub: bad }, { sub: 'sub-1', name: bad }]) {
        const email = uniqueEmail('oauth-hostile')
        const res = await call(iam, 'POST', '/auth/OAuth/demo', { client: device, body: { email, email_verified: true, ...profile } })
        expect(res.status).toBe(400)
        expect(await signupStatus(email)).toBe(201)
      }
    })
  }
})

describe('query strings and cookies that reach the database', () => {
  it('answers 400 for a NUL or a lone surrogate in the link token and random', async () => {
    const random = 'A'.repeat(43)
    for (const path of ['/auth/verify-mfa', '/auth/reset-password']) {
      for (const query of [`token=a.b.%00&random=${random}&reason=R&visitor=v`, `token=a.b.c&random=%ED%A0%80${random}&reason=R&visitor=v`, `token=a.b.c&random=${random}%00&reason=R&visitor=v`]) {
        const res = await call(iam, 'GET', `${path}?${query}`, { client: device })
        expect(res.status).toBe(400)
      }
    }
  })

  it('GET /check replaces a canary cookie carrying a NUL with a fresh one', async () => {
    const res = await fetch(`${iam.url}/check`, { headers: { cookie: 'canary_id=%00abc', 'user-agent': CHROME_UA, 'x-forwarded-for': '203.0.113.182' } })
    expect(res.status).toBe(200)
  })

  it('GET /api/public/verify answers 401 for an x-api-key with non-ASCII bytes', async () => {
    const res = await fetch(`${iam.url}/api/public/verify?privilege=full`, { headers: { 'x-api-key': 'api_\u00ff\u00fe_abc', 'x-forwarded-for': '203.0.113.183' } })
    expect(res.status).toBe(401)
  })
})
