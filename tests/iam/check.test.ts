import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, CHROME_UA, PROXY_CONFIG, setCookieLine, setCookieValue } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { moved, scrapeMetrics } from '../helpers/prometheus'

const CHECK_POINTS = 5

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, rate_limiters: { check: { points: CHECK_POINTS, duration: 60, blockDuration: 60 } } } })
}, 240_000)
afterAll(() => iam?.stop())

describe('GET /check', () => {
  it('issues a canary_id cookie (64 hex, HttpOnly, Secure, SameSite=Lax, 90 days) and answers 200', async () => {
    const res = await call(iam, 'GET', '/check', { client: { ip: '203.0.113.5', ua: CHROME_UA } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      results: { success: true, banned: false, time: expect.any(String), ipAddress: '203.0.113.5' },
      message: 'Device recorded',
    })
    expect(setCookieValue(res, 'canary_id')).toMatch(/^[0-9a-f]{64}$/)
    const line = setCookieLine(res, 'canary_id')!
    expect(line).toMatch(/HttpOnly/i)
    expect(line).toMatch(/Secure/i)
    expect(line).toMatch(/SameSite=Lax/i)
    expect(line).toMatch(/Max-Age=7776000/)
  })

  it('keeps a known canary (no new cookie)', async () => {
    const first = await call(iam, 'GET', '/check', { client: { ip: '203.0.113.5', ua: CHROME_UA } })
    const canary = setCookieValue(first, 'canary_id')!
    const second = await call(iam, 'GET', '/check', { client: { ip: '203.0.113.5', ua: CHROME_UA, canary } })
    expect(second.status).toBe(200)
    expect(setCookieValue(second, 'canary_id')).toBeUndefined()
  })

  it('replaces a malformed canary with a fresh one', async () => {
    const res = await call(iam, 'GET', '/check', { client: { ip: '203.0.113.5', ua: CHROME_UA, canary: 'not-a-canary' } })
    expect(res.status).toBe(200)
    expect(setCookieValue(res, 'canary_id')).toMatch(/^[0-9a-f]{64}$/)
  })

  it('answers 403 to an AI crawler (score at banScore) and keeps it banned', async () => {
    const first = await call(iam, 'GET', '/check', { client: { ip: '203.0.113.9', ua: 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)' } })
    expect(first.status).toBe(403)
    expect(((await first.json()) as Json).results).toEqual({ success: false, banned: true, time: expect.any(String), ipAddress: '203.0.113.9' })
    const canary = setCookieValue(first, 'canary_id')!
    // a browser user agent does not wash the ban
    const again = await call(iam, 'GET', '/check', { client: { ip: '203.0.113.9', ua: CHROME_UA, canary } })
    expect(again.status).toBe(403)
  })
})

/**
 * The write statements `run` made the IAM execute (iam_db_statements_total from /metrics), on
 * PGlite and PostgreSQL alike: /check writes synchronously, and nothing else runs on this IAM.
 */
async function writesDuring(run: () => Promise<void>): Promise<number> {
  const before = await scrapeMetrics(iam.url)
  await run()
  return moved(before, await scrapeMetrics(iam.url), 'iam_db_statements_total', { kind: 'write' })
}

describe('GET /check rate limit (rate_limiters.check, per client address)', () => {
  const check = (ip: string, canary?: string) => call(iam, 'GET', '/check', { client: { ip, ua: CHROME_UA, canary } })

  it('answers 429 with retry and Retry-After once an address spent its fresh-canary budget, and issues no cookie', async () => {
    for (let i = 0; i < CHECK_POINTS; i++) expect((await check('198.51.100.40')).status).toBe(200)
    const res = await check('198.51.100.40')
    expect(res.status).toBe(429)
    const body = (await res.json()) as Json
    expect(body).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) })
    expect(res.headers.get('retry-after')).toBe(String(body.retry))
    expect(setCookieValue(res, 'canary_id')).toBeUndefined()
  })

  it('writes no visitor row for a refused request, while a known canary stays exempt', async () => {
    const ip = '198.51.100.41'
    let known: string | undefined
    for (let i = 0; i < CHECK_POINTS; i++) known = setCookieValue(await check(ip), 'canary_id')
    // a self-made canary of the right shape would be a new row: refused before the write
    const invented = randomBytes(32).toString('hex')
    const refused = await writesDuring(async () => {
      expect((await check(ip, invented)).status).toBe(429)
      for (let i = 0; i < 3; i++) expect((await check(ip)).status).toBe(429)
    })
    expect(refused).toBe(0)
    // a device the IAM already knows costs no point and is still answered
    expect((await check(ip, known)).status).toBe(200)
    // the invented canary is still unknown (a row would have made it exempt like the known one)
    expect((await check(ip, invented)).status).toBe(429)
    // the same request from an address with budget left is admitted and writes its row: the count above sees writes
    const admitted = await writesDuring(async () => {
      expect((await check('198.51.100.44', invented)).status).toBe(200)
    })
    expect(admitted).toBeGreaterThan(0)
  })

  it('leaves another address unaffected', async () => {
    for (let i = 0; i <= CHECK_POINTS; i++) await check('198.51.100.42')
    expect((await check('198.51.100.42')).status).toBe(429)
    const other = await check('198.51.100.43')
    expect(other.status).toBe(200)
    expect(setCookieValue(other, 'canary_id')).toMatch(/^[0-9a-f]{64}$/)
  })
})
