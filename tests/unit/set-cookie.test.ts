import { describe, expect, it } from 'vitest'
import { parseSetCookie } from '../../server/utils/bff/cookies'

const NOW = Date.UTC(2026, 10, 24)

describe("the gateway's reading of the IAM's Set-Cookie headers", () => {
  it('reads name and value and keeps the value as sent, without URL decoding', () => {
    expect(parseSetCookie('session=a%2Bb.c=d; Path=/; HttpOnly; Secure; SameSite=Strict', NOW)).toEqual({
      name: 'session',
      value: 'a%2Bb.c=d',
      cleared: false,
    })
  })

  it('counts an empty value, Max-Age 0 or below, and a past Expires as clearing the cookie', () => {
    expect(parseSetCookie('session=; Path=/', NOW)?.cleared).toBe(true)
    expect(parseSetCookie('session=x; Max-Age=0', NOW)?.cleared).toBe(true)
    expect(parseSetCookie('session=x; Max-Age=-1', NOW)?.cleared).toBe(true)
    expect(parseSetCookie('session=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT', NOW)?.cleared).toBe(true)
  })

  it('keeps a cookie with a future Expires or a positive Max-Age', () => {
    expect(parseSetCookie('canary_id=v; Expires=Fri, 01 Jan 2100 00:00:00 GMT', NOW)?.cleared).toBe(false)
    expect(parseSetCookie('canary_id=v; Max-Age=3600', NOW)?.cleared).toBe(false)
  })

  it('answers undefined for a header without a cookie name', () => {
    expect(parseSetCookie('novalue', NOW)).toBeUndefined()
    expect(parseSetCookie('=v; Path=/', NOW)).toBeUndefined()
  })
})
