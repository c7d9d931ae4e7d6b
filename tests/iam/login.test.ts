import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, setCookieLine, signupUser, STRONG_PASSWORD, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'
import { untilMailTo } from '../helpers/outbox'
import { moved, scrapeMetrics } from '../helpers/prometheus'

let iam: IamServer
let device: Client
let user: Session
beforeAll(async () => {
  // the clock moves in the last test only (the device row's freshness)
  iam = await startIam({ config: { ...PROXY_CONFIG, rate_limiters: { login: { points: 3, duration: 60, blockDuration: 60 } } }, env: CLOCK_ENV })
  device = await newDevice(iam, { ip: '198.51.100.7' })
  user = await signupUser(iam, { client: device })
}, 240_000)
afterAll(() => iam?.stop())

const post = (body: unknown, client: Client = device) => call(iam, 'POST', '/login', { client, body })
const invalid = { ok: false, date: expect.any(String), error: 'Invalid email or password', code: 'invalid_credentials' }

describe('POST /login', () => {
  it('issues tokens (200) for the right password, whatever the case of the address', async () => {
    const res = await post({ email: user.email.toUpperCase().replace('@EXAMPLE.COM', '@example.com'), password: STRONG_PASSWORD })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
    expect(setCookieLine(res, 'session')).toMatch(/HttpOnly.*Secure.*SameSite=Strict|SameSite=Strict/i)
  })

  it('costs one read (the device row, fresh, with the account and its second factor) and one write (the session with its audit row), no transaction', async () => {
    // GET /check has just written the device row: it is fresh, so the login only reads it, with the account
    const client = await newDevice(iam, { ip: '198.51.100.30' })
    // the signup's verification mail is written after its answer: counting starts once it is out
    await untilMailTo(iam.dataDir, user.email)
    const before = await scrapeMetrics(iam.url)
    const res = await post({ email: user.email, password: STRONG_PASSWORD }, client)
    expect(res.status).toBe(200)
    const after = await scrapeMetrics(iam.url)
    const statements = (kind: string) => moved(before, after, 'iam_db_statements_total', { kind })
    expect(statements('transaction')).toBe(0)
    expect(statements('read')).toBe(1)
    // the session's: a device row written on every login would make it 2
    expect(statements('write')).toBe(1)
    expect(moved(before, after, 'iam_security_events_total', { type: 'login_succeeded' })).toBe(1)
  })

  it('answers the same 401 body for a wrong password and for an unknown address', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.20' })
    const wrong = await post({ email: user.email, password: 'not the password at all' }, client)
    const unknown = await post({ email: uniqueEmail('ghost'), password: 'not the password at all' }, client)
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(await wrong.json()).toEqual(invalid)
    expect(await unknown.json()).toEqual(invalid)
  })

  it('answers 400 without the canary_id cookie and for a body without a password', async () => {
    const noCanary = await post({ email: user.email, password: STRONG_PASSWORD }, { ...device, canary: undefined })
    expect(noCanary.status).toBe(400)
    const missing = await post({ email: user.email })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({
      ok: false,
      date: expect.any(String),
      error: 'Validation failed',
      code: 'validation_failed',
      fields: { password: expect.any(String) },
      fieldIssues: { password: { code: 'required' } },
    })
  })

  it('limits failures per IP + address with 429 and Retry-After, without locking the address out for other IPs', async () => {
    const attacker = await newDevice(iam, { ip: '192.0.2.50' })
    const victim = await signupUser(iam, { client: await newDevice(iam, { ip: '192.0.2.60' }) })
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i < 4; i++) {
      last = await post({ email: victim.email, password: 'wrong password number x' }, attacker)
      statuses.push(last.status)
    }
    expect(statuses).toEqual([401, 401, 401, 429])
    expect(await last!.json()).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) })
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
    // the owner, from their own network, still gets in
    const owner = await post({ email: victim.email, password: STRONG_PASSWORD }, victim)
    expect(owner.status).toBe(200)
  })

  it('answers 403 for a banned device', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.30' })
    const xss = await post({ email: '<script>alert(1)</script>@example.com', password: 'whatever password' }, client)
    expect(xss.status).toBe(403)
    expect(await xss.json()).toEqual({ banned: true, code: 'xss_rejected' })
    const again = await post({ email: user.email, password: STRONG_PASSWORD }, client)
    expect(again.status).toBe(403)
    expect(await again.json()).toEqual({ ok: false, date: expect.any(String), error: 'Device banned', code: 'device_banned', banned: true })
  })

  // moves the IAM clock: last in this file
  it('writes the device row when it is past its freshness window (a minute), then reads it again: steady logins write only their session', async () => {
    const client = await newDevice(iam, { ip: '198.51.100.40' })
    await untilMailTo(iam.dataDir, user.email)
    const writesOf = async () => {
      const before = await scrapeMetrics(iam.url)
      const res = await post({ email: user.email, password: STRONG_PASSWORD }, client)
      expect(res.status).toBe(200)
      return moved(before, await scrapeMetrics(iam.url), 'iam_db_statements_total', { kind: 'write' })
    }
    expect(await writesOf()).toBe(1)
    expect(await writesOf()).toBe(1)
    await advanceClock(iam, 61_000)
    // the device row (last_seen a minute old) and the session
    expect(await writesOf()).toBe(2)
    // that write moved last_seen: the row is fresh again
    expect(await writesOf()).toBe(1)
  })
})
