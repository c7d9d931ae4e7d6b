/**
 * Every user is one client to the IAM unless the client address survives both hops. The
 * real IAM trusts the gateway's address as its proxy, as `npm start` configures
 * it; the gateway trusts a load balancer on 127.0.0.1, played by this test, which sends
 * X-Forwarded-For as a load balancer does (the browser's own value, then the peer it saw).
 */
// store-independent: its subject is which address each hop passes on, read from headers; no answer it checks comes from a store
import { describe, expect, it } from 'vitest'
import { browserLike, freshEmail, PASSWORD, setupStack } from './bff-harness'

const VICTIM_IP = '203.0.113.20'
const ATTACKER_IP = '198.51.100.66'
const SECOND_ATTACKER_IP = '198.51.100.67'
const THIRD_ATTACKER_IP = '198.51.100.68'
// login budget 2 per IP + email, 2 x 5 per IP (iam/features/rate-limits/registry.ts)
const LOGIN = { points: 2, duration: 600, blockDuration: 600 }

const stack = await setupStack(
  { rate_limiters: { login: LOGIN, signup: { points: 100, duration: 60, blockDuration: 1 } } },
  { proxy: { trust: true, ipToTrust: '127.0.0.1' } },
)

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

  it("one client's junk keys on API token verification (429, banned) do not ban verification for another client", async () => {
    // a fresh junk key per request: the limiter also bans a presented key, and only the IP is under test here
    let n = 0
    const verify = (forwardedFor: string) =>
      fetch(`${stack.gateway.url}/api/public/verify?privilege=protected`, {
        headers: { 'x-api-key': `api_junk${n++}_AAAAAA`, 'x-forwarded-for': forwardedFor },
      })
    let status = 0
    // consumption limiter: 10 failures a minute, then a permanent ban of the key (the client IP)
    for (let attempt = 0; attempt < 12 && status !== 429; attempt++) status = (await verify(THIRD_ATTACKER_IP)).status
    expect(status).toBe(429)
    expect((await verify(THIRD_ATTACKER_IP)).headers.get('retry-after')).toBe('permanent')
    const other = await verify(VICTIM_IP)
    expect(other.status).toBe(401)
    expect(await other.json()).toMatchObject({ ok: false, reason: 'Invalid key' })
  })

  it('refuses with 400 a request whose trusted proxy sent no valid client address, instead of passing it off as the gateway', async () => {
    const res = await clientAt('not-an-address').call('/api/auth/login', { method: 'POST', body: { email: freshEmail('x'), password: 'wrong password 123' } })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ ok: false })
  })
})
