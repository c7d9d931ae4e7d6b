/**
 * The bot check on password sign-in after recent failures, through the BFF (server/api/auth/login.post.ts,
 * the IAM's features/users/login-service.ts): the IAM's 400 `bot_check_required` reaches the page, a
 * solved challenge from GET /api/auth/bot-challenge is passed on with the same attempt, and a form
 * posted without JavaScript comes back to the sign-in page with the sentence that says what to do.
 */
// store-independent: the gateway keeps no store of its own; the IAM side of the bot check runs on both stores in tests/iam/bot-challenge.security.test.ts
import { solveChallenge } from 'altcha-lib/v1'
import { describe, expect, it } from 'vitest'
import { browserLike, freshEmail, PASSWORD, setupStack } from './bff-harness'

// every request of this file reaches the IAM from the same client address: its failures add up across the tests
const stack = await setupStack({ botChallenge: { enabled: true, maxNumber: 1000, loginAfterFailures: 3 } })
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const FORM_POST = { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' }
const PAGE = { accept: 'text/html', 'sec-fetch-dest': 'document' }

type Browser = ReturnType<typeof browserLike>

/** Solves the BFF's challenge as the page does (composables/useBotProof.ts) and returns the `botProof` it sends. */
async function solve(b: Browser): Promise<string> {
  const res = await b.call('/api/auth/bot-challenge')
  expect(res.status, res.text).toBe(200)
  const c = (res.json.data as { challenge: { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string } }).challenge
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise
  if (!solution) throw new Error('no solution found')
  return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature }))
}

async function account(): Promise<string> {
  const b = browserLike(stack.gateway.url)
  const email = freshEmail('bot-login')
  const signup = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Ada', termsConsent: 'on', botProof: await solve(b) } })
  expect(signup.status, signup.text).toBe(201)
  return email
}

describe('the bot check on the sign-in page after failures', () => {
  it('passes the IAM asking for the check on to the page, and signs in with the same attempt and a solved check', async () => {
    const email = await account()
    const b = browserLike(stack.gateway.url)
    for (let i = 0; i < 3; i++) expect((await b.call('/api/auth/login', { method: 'POST', body: { email, password: 'not the password at all' } })).status).toBe(401)
    const asked = await b.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD } })
    expect([asked.status, asked.json.code]).toEqual([400, 'bot_check_required'])
    const solved = await b.call('/api/auth/login', { method: 'POST', body: { email, password: PASSWORD, botProof: await solve(b) } })
    expect(solved.status, solved.text).toBe(200)
    expect(solved.json.signedIn).toBe(true)
  })

  it('without JavaScript, comes back to the sign-in page saying to turn JavaScript on or try later', async () => {
    const email = await account()
    const b = browserLike(stack.gateway.url)
    await b.call('/login', { headers: PAGE })
    const csrf = b.jar.get('__Host-csrf') ?? ''
    // the earlier test's failures from this address count too: at least three by now
    for (let i = 0; i < 3; i++) await b.call('/api/auth/login', { method: 'POST', body: { email, password: 'not the password at all' } })
    const post = await b.call('/api/auth/login', { method: 'POST', body: form({ email, password: PASSWORD, _csrf: csrf }), headers: FORM_POST })
    expect(post.status).toBe(303)
    expect(post.headers.get('location')).toBe('/login?error=bot_check_login_needs_js')
    const page = await b.call('/login?error=bot_check_login_needs_js', { headers: PAGE })
    expect(page.text).toContain('After several failed sign-ins, this form checks your browser with JavaScript before it signs you in.')
  })
})
