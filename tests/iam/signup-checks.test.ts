import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, newDevice, PROXY_CONFIG, signupBody } from '../helpers/accounts'
import { startDnsServer, type DnsServer } from '../helpers/dns-server'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { startRangeServer, type RangeServer } from '../helpers/range-server'

let iam: IamServer
let range: RangeServer
let dns: DnsServer
const BREACHED = 'breached passphrase from a dump'
beforeAll(async () => {
  range = await startRangeServer([BREACHED])
  dns = await startDnsServer({ 'mail.test': { mx: ['mx.mail.test'] } })
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      password: { breachCheck: { enabled: true, rangeApiUrl: range.url, failOpen: true, timeoutMs: 2000 } },
      emailChecks: { mx: true, dnsServers: [dns.server] },
      rate_limiters: { signup: { points: 5, duration: 600, blockDuration: 600 } },
    },
  })
}, 240_000)
afterAll(async () => {
  await iam?.stop()
  await range?.stop()
  await dns?.stop()
})

let n = 0
const email = (domain = 'mail.test') => `user${Date.now()}.${++n}@${domain}`

describe('POST /signup with breach and MX checks (local range API and DNS)', () => {
  it('creates the user when the domain has MX and the password is not breached', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.120' })
    const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email()) })
    expect(res.status).toBe(201)
    expect(range.requests.at(-1)?.padding).toBe('true')
  })

  it('answers 400 for a breached password', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.121' })
    const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email(), BREACHED) })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      ok: false, date: expect.any(String), error: 'Validation failed', code: 'password_rejected',
      fields: { password: 'This password has appeared in a data breach; choose another one' },
    })
  })

  it('answers 400 at the password field for a long but easily guessed password', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.124' })
    const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email(), 'aaaaaaaaaaaa') })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      ok: false, date: expect.any(String), error: 'Validation failed', code: 'password_rejected',
      fields: { password: 'This password is too easy to guess: A repeated character like "aaa" is easy to guess.' },
    })
  })

  it('answers 400 when the password is built from the person own name or email address', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.125' })
    const address = email()
    const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(address, `${address.split('@')[0]}!`) })
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toEqual({ password: 'This password is too easy to guess: It contains your name or email address.' })
  })

  it('answers 400 for a domain without mail (NXDOMAIN)', async () => {
    const device = await newDevice(iam, { ip: '203.0.113.122' })
    const res = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email('nowhere.test')) })
    expect(res.status).toBe(400)
    expect(((await res.json()) as Json).fields).toEqual({ email: 'The email domain cannot receive mail' })
  })

  it('answers 429 once the signup limit of the IP is spent', async () => {
    const device = await newDevice(iam, { ip: '192.0.2.123' })
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i < 6; i++) {
      last = await call(iam, 'POST', '/signup', { client: device, body: signupBody(email()) })
      statuses.push(last.status)
    }
    expect(statuses.slice(0, 5)).toEqual([201, 201, 201, 201, 201])
    expect(last!.status).toBe(429)
    expect(await last!.json()).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) })
  })
})
