/**
 * Limits that rotating addresses must not escape: an IPv6 client counts as its
 * /64, and failed logins for one account slow down whatever addresses they come from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupUser, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { flushedLogs, requestLine } from '../helpers/logs'
import { untilMailTo } from '../helpers/outbox'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import { waitUntil } from '../helpers/wait'

const FREE_ATTEMPTS = 3
/** the free failures, and the attempt after them (so a right password after typos gets in at once) */
const HEARD_AT_ONCE = FREE_ATTEMPTS + 1
// A minute-long delay: an early attempt is early however slow the machine is. The delay running
// out is tested on a second IAM with a short one (and on the memory clock in the unit tests).
const DELAY = { freeAttempts: FREE_ATTEMPTS, baseDelayMs: 60_000, maxDelayMs: 60_000, windowMs: 600_000 }
const SHORT_DELAY = { freeAttempts: FREE_ATTEMPTS, baseDelayMs: 50, maxDelayMs: 100, windowMs: 600_000 }

const startWith = (loginAccountDelay: typeof DELAY, env?: Record<string, string>) =>
  startIam({
    env,
    config: {
      ...PROXY_CONFIG,
      rate_limiters: {
        // per IP: 2 * LOGIN_IP_FACTOR (5) = 10 attempts a minute
        login: { points: 2, duration: 60, blockDuration: 60 },
        loginAccountDelay,
      },
    },
  })

let iam: IamServer
let device: Client
beforeAll(async () => {
  iam = await startWith(DELAY)
  device = await newDevice(iam, { ip: '198.51.100.1' })
}, 240_000)
afterAll(() => iam?.stop())

const WRONG = 'not the password at all'
let requestSeq = 0
/** POST /login from `ip` with the shared device; the request id lets a test wait for its log line. */
function login(email: string, password: string, ip: string, server = iam, client = device): Promise<Response> & { requestId: string } {
  const requestId = `throttle-${++requestSeq}`
  const promise = call(server, 'POST', '/login', { client: { ...client, ip }, body: { email, password }, headers: { 'x-request-id': requestId } })
  return Object.assign(promise, { requestId })
}

/** Distinct IPv4 addresses, never reused in this file. */
let ipSeq = 0
const freshIpv4 = () => `10.${(++ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`

const verifyLines = (logs = iam.logs) => logs.filter((l) => l.includes('"login verification"')).length
/** Waits until the IAM logged the end of each request (its Argon2 log line, if any, comes before). */
async function untilLogged(requestIds: string[]): Promise<void> {
  await Promise.all(requestIds.map((id) => requestLine(iam, id)))
}

/** Runs `fn` and returns how many Argon2 verifications the IAM ran for the given requests. */
async function countVerifications(fn: () => Promise<string[]>): Promise<number> {
  // every earlier login's line in first, so none of them is counted as one of these
  const before = verifyLines(await flushedLogs(iam))
  await untilLogged(await fn())
  return verifyLines() - before
}


describe('per-IP login limit with IPv6 clients', () => {
  it('counts every address of one IPv6 /64 against one budget, and leaves another /64 alone', async () => {
    const statuses: number[] = []
    // 11 addresses of 2001:db8:aa:1::/64, each with its own (unknown) email: only the IP budget is shared
    for (let i = 1; i <= 11; i++) statuses.push((await login(uniqueEmail('v6'), WRONG, `2001:db8:aa:1:${i.toString(16)}::${i}`)).status)
    expect(statuses.slice(0, 10)).toEqual(new Array(10).fill(401))
    expect(statuses[10]).toBe(429)
    // another spelling of an address in that /64 is still limited
    expect((await login(uniqueEmail('v6'), WRONG, '2001:0DB8:00AA:0001:ffff:0:0:1')).status).toBe(429)
    // the neighbouring /64 has its own budget
    expect((await login(uniqueEmail('v6'), WRONG, '2001:db8:aa:2::1')).status).toBe(401)
  })
})

describe('per-account login delay', () => {
  let owner: Session
  beforeAll(async () => {
    owner = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.2' }) })
  })

  it('throttles guesses for one account spread over many IPv4 addresses, without an Argon2 verification, and not another account', async () => {
    const victim = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.3' }) })
    const statuses: number[] = []
    const used = await countVerifications(async () => {
      const ids: string[] = []
      for (let i = 0; i < HEARD_AT_ONCE + 1; i++) {
        const req = login(victim.email, WRONG, freshIpv4())
        ids.push(req.requestId)
        statuses.push((await req).status)
      }
      return ids
    })
    expect(statuses).toEqual([...new Array(HEARD_AT_ONCE).fill(401), 429])
    expect(used).toBe(HEARD_AT_ONCE)
    // another account is unaffected
    expect((await login(owner.email, owner.password, freshIpv4())).status).toBe(200)
  })

  it('answers an early attempt 429 with the wait in retry and Retry-After, and refuses the right password too', async () => {
    const s = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.4' }) })
    for (let i = 0; i < HEARD_AT_ONCE; i++) await login(s.email, WRONG, freshIpv4())
    const early = await login(s.email, s.password, freshIpv4())
    expect(early.status).toBe(429)
    const body = (await early.json()) as Json
    expect(body).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) })
    expect(body.retry).toBeGreaterThan(0)
    expect(body.retry).toBeLessThanOrEqual(60)
    expect(early.headers.get('retry-after')).toBe(String(body.retry))
  })

  it('throttles an unknown address exactly like a known one (status, body, no Argon2)', async () => {
    const known = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.5' }) })
    const unknown = uniqueEmail('ghost')
    const answers: Array<{ status: number; body: unknown; retryAfter: string | null }> = []
    const used = await countVerifications(async () => {
      const ids: string[] = []
      for (const email of [known.email, unknown]) {
        for (let i = 0; i < HEARD_AT_ONCE; i++) {
          const req = login(email, WRONG, freshIpv4())
          ids.push(req.requestId)
          await req
        }
        const req = login(email, WRONG, freshIpv4())
        ids.push(req.requestId)
        const res = await req
        answers.push({ status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') })
      }
      return ids
    })
    for (const answer of answers) {
      expect(answer).toEqual({ status: 429, body: { error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) }, retryAfter: expect.any(String) })
      expect(answer.retryAfter).toBe(String((answer.body as Json).retry))
    }
    expect(used).toBe(2 * HEARD_AT_ONCE)
  })

  it('makes the same one read and no write for a throttled attempt on a known address as on an unknown one', async () => {
    const known = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.7' }) })
    await untilMailTo(iam.dataDir, known.email)
    const counts: number[][] = []
    for (const email of [known.email, uniqueEmail('ghost')]) {
      const start = await scrapeMetrics(iam.url)
      for (let i = 0; i < HEARD_AT_ONCE; i++) await login(email, WRONG, freshIpv4())
      // a known address's failures are audited off the request path: counting starts once they are written
      const audited = email === known.email ? HEARD_AT_ONCE : 0
      await waitUntil(async () => moved(start, await scrapeMetrics(iam.url), 'iam_security_events_total', { type: 'login_failed' }) >= audited, 'failed logins audited')
      // a device whose row GET /check has just written, on its own address: its row is fresh
      const ip = freshIpv4()
      const client = await newDevice(iam, { ip })
      const before = await scrapeMetrics(iam.url)
      expect((await login(email, WRONG, ip, iam, client)).status).toBe(429)
      const after = await scrapeMetrics(iam.url)
      counts.push(['read', 'write', 'transaction'].map((kind) => moved(before, after, 'iam_db_statements_total', { kind })))
    }
    // the device row with the account of the address: the same statement whether or not it has one
    expect(counts).toEqual([
      [1, 0, 0],
      [1, 0, 0],
    ])
  })

  it('keys the delay on the address whatever its case', async () => {
    const s = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.6' }) })
    for (let i = 0; i < HEARD_AT_ONCE; i++) await login(s.email, WRONG, freshIpv4())
    expect((await login(s.email.toUpperCase(), WRONG, freshIpv4())).status).toBe(429)
  })

  it('lets at most the free failures and one more through when 20 wrong guesses for one account arrive in parallel', async () => {
    const s = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.7' }) })
    const statuses: number[] = []
    const used = await countVerifications(async () => {
      const requests = Array.from({ length: 20 }, () => login(s.email, WRONG, freshIpv4()))
      for (const res of await Promise.all(requests)) statuses.push(res.status)
      return requests.map((r) => r.requestId)
    })
    expect(used).toBeLessThanOrEqual(HEARD_AT_ONCE)
    expect(statuses.filter((s) => s === 401).length).toBe(used)
    expect(statuses.filter((s) => s === 429).length).toBe(20 - used)
  })

  it('is forgiven by a successful login: the next guesses are free again', async () => {
    const s = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.8' }) })
    const elsewhere = await newDevice(iam, { ip: '198.51.100.9' })
    for (let i = 0; i < HEARD_AT_ONCE - 1; i++) expect((await login(s.email, WRONG, freshIpv4())).status).toBe(401)
    expect((await login(s.email, s.password, freshIpv4())).status).toBe(200)
    for (let i = 0; i < HEARD_AT_ONCE; i++) expect((await login(s.email, WRONG, freshIpv4(), iam, elsewhere)).status).toBe(401)
    expect((await login(s.email, WRONG, freshIpv4(), iam, elsewhere)).status).toBe(429)
  })

  it('does not slow the owner on a device that signed in before, which meets the delay only for its own failures', async () => {
    const s = await signupUser(iam, { client: await newDevice(iam, { ip: '198.51.100.10' }) })
    expect((await login(s.email, s.password, freshIpv4(), iam, s)).status).toBe(200)
    for (let i = 0; i < HEARD_AT_ONCE; i++) await login(s.email, WRONG, freshIpv4())
    expect((await login(s.email, s.password, freshIpv4())).status).toBe(429)
    // the owner's device is not held up by the guesses from elsewhere
    expect((await login(s.email, s.password, freshIpv4(), iam, s)).status).toBe(200)
    // but guesses through that device (a stolen cookie) meet the delay on their own
    for (let i = 0; i < HEARD_AT_ONCE; i++) expect((await login(s.email, WRONG, freshIpv4(), iam, s)).status).toBe(401)
    expect((await login(s.email, s.password, freshIpv4(), iam, s)).status).toBe(429)
  })
})

describe('per-account login delay running out', () => {
  let short: IamServer
  let shortDevice: Client
  beforeAll(async () => {
    short = await startWith(SHORT_DELAY)
    shortDevice = await newDevice(short, { ip: '198.51.100.1' })
  }, 240_000)
  afterAll(() => short?.stop())

  it('lets the owner sign in with the right password once the delay has passed, however many guesses came before', async () => {
    const s = await signupUser(short, { client: await newDevice(short, { ip: '198.51.100.9' }) })
    for (let i = 0; i < FREE_ATTEMPTS + 5; i++) await login(s.email, WRONG, freshIpv4(), short, shortDevice)
    // an early attempt is refused and changes nothing; the first one after the delay (<= 100 ms) is heard
    let status = 429
    for (let i = 0; i < 100 && status === 429; i++) {
      status = (await login(s.email, s.password, freshIpv4(), short, shortDevice)).status
      if (status === 429) await new Promise((r) => setTimeout(r, 20))
    }
    expect(status).toBe(200)
  })
})

describe('the device mark over months of sign-ins', () => {
  const DAY_MS = 24 * 60 * 60 * 1000
  let clocked: IamServer
  let elsewhere: Client
  beforeAll(async () => {
    clocked = await startWith(DELAY, CLOCK_ENV)
    elsewhere = await newDevice(clocked, { ip: '198.51.100.1' })
  }, 240_000)
  afterAll(() => clocked?.stop())

  it('keeps a device known for 90 days after its latest sign-in, not its first (a mark over a day old is renewed)', async () => {
    const s = await signupUser(clocked, { client: await newDevice(clocked, { ip: '198.51.100.11' }) })
    expect((await login(s.email, s.password, freshIpv4(), clocked, s)).status).toBe(200)
    await advanceClock(clocked, 2 * DAY_MS)
    expect((await login(s.email, s.password, freshIpv4(), clocked, s)).status).toBe(200)
    // 91 days after the first sign-in, 89 after the latest
    await advanceClock(clocked, 89 * DAY_MS)
    for (let i = 0; i < HEARD_AT_ONCE; i++) expect((await login(s.email, WRONG, freshIpv4(), clocked, elsewhere)).status).toBe(401)
    expect((await login(s.email, s.password, freshIpv4(), clocked, elsewhere)).status).toBe(429)
    // still a known device: its own delay, untouched by the guesses from elsewhere
    expect((await login(s.email, s.password, freshIpv4(), clocked, s)).status).toBe(200)
  })
})
