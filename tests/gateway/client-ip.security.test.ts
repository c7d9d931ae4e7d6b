/**
 * Every user is one client to the IAM unless the client address survives both hops (issue 11,
 * finding 4.1). The real IAM trusts the gateway's address as its proxy, as `npm start` configures
 * it; the gateway trusts a load balancer on 127.0.0.1, played by this test, which sends
 * X-Forwarded-For as a load balancer does (the browser's own value, then the peer it saw).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserLike, freshEmail, PASSWORD, startStack, type Stack } from './bff-harness'

const VICTIM_IP = '203.0.113.20'
const ATTACKER_IP = '198.51.100.66'
const SECOND_ATTACKER_IP = '198.51.100.67'
// login budget 2 per IP + email, 2 x 5 per IP (iam/features/users/auth-limiters.ts)
const LOGIN = { points: 2, duration: 600, blockDuration: 600 }

let stack: Stack
beforeAll(async () => {
  stack = await startStack(
    { rate_limiters: { login: LOGIN, signup: { points: 100, duration: 60, blockDuration: 1 } } },
    { proxy: { trust: true, ipToTrust: '127.0.0.1' } },
  )
})
afterAll(() => stack?.stop())

/** A browser behind the load balancer: every request arrives with `forwardedFor`. */
function clientAt(forwardedFor: string) {
  const b = browserLike(stack.gateway.url)
  return {
    jar: b.jar,
    call: (path: string, init: Parameters<typeof b.call>[1] = {}) => b.call(path, { ...init, headers: { 'x-forwarded-for': forwardedFor, ...init.headers } }),
  }
}

async function signUp(forwardedFor: string) {
  const client = clientAt(forwardedFor)
  const email = freshEmail('ip')
  const res = await client.call('/api/auth/signup', {
    method: 'POST',
    body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Test User', termsConsent: 'on' },
  })
  expect(res.status, res.text).toBe(201)
  return email
}

describe('client IP through the gateway to the IAM', () => {
  it("one client's failed logins up to the IP limit (429) do not limit another client", async () => {
    const victimEmail = await signUp(VICTIM_IP)
    const attacker = clientAt(ATTACKER_IP)
    let status = 0
    // the IP budget is 10 failures; a few more attempts cannot pass it
    for (let attempt = 0; attempt < 12 && status !== 429; attempt++) {
      status = (await attacker.call('/api/auth/login', { method: 'POST', body: { email: freshEmail('nobody'), password: 'wrong password 123' } })).status
      if (status !== 429) expect(status).toBe(401)
    }
    expect(status).toBe(429)
    const victim = clientAt(VICTIM_IP)
    const res = await victim.call('/api/auth/login', { method: 'POST', body: { email: victimEmail, password: PASSWORD } })
    expect(res.status, res.text).toBe(200)
  })

  it("failed logins against a victim's address from another client do not lock the victim out", async () => {
    const victimEmail = await signUp(VICTIM_IP)
    const attacker = clientAt(`${VICTIM_IP}, ${SECOND_ATTACKER_IP}`)
    const statuses: number[] = []
    for (let attempt = 0; attempt < LOGIN.points + 1; attempt++) {
      statuses.push((await attacker.call('/api/auth/login', { method: 'POST', body: { email: victimEmail, password: 'wrong password 123' } })).status)
    }
    // the forged left-most entry is the attacker's own text: the load balancer's right-most one counts
    expect(statuses).toEqual([401, 401, 429])
    const res = await clientAt(VICTIM_IP).call('/api/auth/login', { method: 'POST', body: { email: victimEmail, password: PASSWORD } })
    expect(res.status, res.text).toBe(200)
  })
})
