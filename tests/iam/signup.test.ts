import { beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, setCookieLine, setCookieValue, signupBody, signupUser, uniqueEmail, type Client } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam } from '../helpers/shared-iam'

const iam = sharedIam()
let device: Client
beforeAll(async () => {
  device = await newDevice(iam)
})

const post = (body: unknown, client: Client = device) => call(iam, 'POST', '/signup', { client, body })

describe('POST /signup', () => {
  it('creates the user (201) with an access token in the body and the refresh token in a Strict HttpOnly cookie', async () => {
    const res = await post(signupBody(uniqueEmail()))
    expect(res.status).toBe(201)
    const body = (await res.json()) as Json
    expect(body).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
    const cookie = setCookieLine(res, 'session')!
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/Secure/i)
    expect(cookie).toMatch(/SameSite=Strict/i)
    expect(cookie).toMatch(/Path=\//)
    // refresh_tokens.domain defaults to localhost: no Domain attribute
    expect(cookie).not.toMatch(/Domain=/i)
    expect(setCookieValue(res, 'session')).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('answers 400 without the canary_id cookie', async () => {
    const res = await post(signupBody(uniqueEmail()), { ...device, canary: undefined })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'The canary_id cookie is required', code: 'device_cookie_missing' })
  })

  it('answers 400 with fields for a missing name, a bad address and terms not accepted', async () => {
    const res = await post({ ...signupBody('not-an-email'), name: '', termsConsent: 'yes' })
    expect(res.status).toBe(400)
    const body = (await res.json()) as Json
    expect(body.error).toBe('Validation failed')
    expect(Object.keys(body.fields as Json).sort()).toEqual(['name', 'termsConsent'])
    const bad = await post(signupBody('not-an-email'))
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as Json).fields).toEqual({ email: 'Invalid email address' })
  })

  it('answers 400 when the passwords differ', async () => {
    const res = await post({ ...signupBody(uniqueEmail()), confirmedPassword: 'something else entirely' })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      ok: false,
      date: expect.any(String),
      error: 'Passwords do not match', code: 'passwords_mismatch',
      fields: { confirmedPassword: 'Passwords do not match' },
    })
  })

  it('answers 400 for a password shorter than 12 characters or equal to the email', async () => {
    const short = await post(signupBody(uniqueEmail(), 'short-pass1'))
    expect(short.status).toBe(400)
    expect(((await short.json()) as Json).fields).toEqual({ password: 'Password must be at least 12 characters' })
    const email = uniqueEmail()
    const same = await post(signupBody(email, email))
    expect(same.status).toBe(400)
    expect(((await same.json()) as Json).fields).toEqual({ password: 'Password must not be your email address' })
  })

  it('answers 400 for a disposable email provider', async () => {
    const res = await post(signupBody(`someone.${Date.now()}@mailinator.com`))
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toEqual({ email: 'Disposable email addresses are not accepted' })
  })

  it('answers 409 for an address already registered, whatever its case', async () => {
    const email = uniqueEmail()
    await signupUser(iam, { email, client: device })
    const res = await post(signupBody(email.toUpperCase().replace('@EXAMPLE.COM', '@example.com')))
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Email already registered', code: 'email_taken' })
  })

  it('gives rememberUser=on a longer-lived refresh cookie', async () => {
    const normal = await post(signupBody(uniqueEmail()))
    const remembered = await post(signupBody(uniqueEmail(), undefined, { rememberUser: 'on' }))
    const maxAge = (res: Response) => Number(/Max-Age=(\d+)/i.exec(setCookieLine(res, 'session')!)![1])
    expect(maxAge(normal)).toBeGreaterThan(6 * 86_400)
    expect(maxAge(normal)).toBeLessThanOrEqual(7 * 86_400)
    expect(maxAge(remembered)).toBeGreaterThan(29 * 86_400)
  })

  it('creates exactly one user when 50 signups with one address run in parallel', async () => {
    const email = uniqueEmail('race')
    const results = await Promise.all(Array.from({ length: 50 }, () => post(signupBody(email))))
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(49)
  })
})
