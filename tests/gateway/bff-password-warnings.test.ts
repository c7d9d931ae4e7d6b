/**
 * A new password accepted while the breached-password service was unreachable (failOpen, the
 * default) is not passed off as checked: the BFF relays the IAM's `warnings` to the page, and a
 * no-JS form lands on its next page with `?notice=` for the layout to show. A password the IAM
 * finds too easy to guess comes back at the `password` field.
 */
// store-independent: its subject is how the gateway relays the IAM warnings; the breach check behind them runs on both stores in tests/iam/breach-check.test.ts
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { browserLike, freshEmail, PASSWORD, setupStack } from './bff-harness'

/** a loopback port with nothing listening: connecting to it fails at once (unreachable, not slow) */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const rangePort = await closedPort()
const stack = await setupStack({
  password: { breachCheck: { enabled: true, rangeApiUrl: `http://127.0.0.1:${rangePort}/range/`, failOpen: true, timeoutMs: 2000 } },
  rate_limiters: { signup: { points: 100, duration: 60, blockDuration: 1 } },
})

const signupBody = (email: string, password = PASSWORD) => ({ email, password, confirmedPassword: password, name: 'Test User', termsConsent: 'on' })

describe('BFF sign-up while the breach check cannot run', () => {
  it('signs the person in and relays warnings: [breach_check_skipped]', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/auth/signup', { method: 'POST', body: signupBody(freshEmail('unchecked')) })
    expect(res.status).toBe(201)
    expect(res.json).toEqual({ ok: true, date: expect.any(String), signedIn: true, warnings: ['breach_check_skipped'] })
    expect(b.jar.get('__Secure-a')).toBeTruthy()
  })

  it('sends a no-JS form to its next page with ?notice=breach_check_skipped', async () => {
    const b = browserLike(stack.gateway.url)
    await b.call('/signup', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    const form = { ...signupBody(freshEmail('unchecked-form')), returnTo: '/tokens', _csrf: b.jar.get('__Host-csrf') ?? '' }
    const res = await b.call('/api/auth/signup', {
      method: 'POST',
      body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' },
    })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/tokens?notice=breach_check_skipped')
  })

  it('answers 400 at the password field for a password too easy to guess', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/auth/signup', { method: 'POST', body: signupBody(freshEmail('weak'), 'aaaaaaaaaaaa') })
    expect(res.status).toBe(400)
    expect(res.json.fields).toEqual({ password: 'This password is too easy to guess: A repeated character like "aaa" is easy to guess.' })
  })
})
