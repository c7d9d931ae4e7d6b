import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, CHROME_UA, PROXY_CONFIG, setCookieLine, setCookieValue } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: PROXY_CONFIG })
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
