import { describe, expect, it } from 'vitest'
import { authedGet, call, signupUser } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam } from '../helpers/shared-iam'

const iam = sharedIam()

describe('GET /secret/data', () => {
  it('answers 200 with userId, authorized, ipAddress, userAgent, date and roles', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.60' } })
    const res = await authedGet(iam, s)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      userId: expect.any(Number), authorized: true, ipAddress: '203.0.113.60', userAgent: s.ua, date: expect.any(String), roles: ['user'],
    })
  })

  it('answers 401 Missing Bearer token without the header and Access token missing for an empty one', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.61' } })
    const none = await call(iam, 'GET', '/secret/data', { client: s, cookies: { session: s.refreshToken } })
    expect(none.status).toBe(401)
    expect(await none.json()).toEqual({ ok: false, date: expect.any(String), error: 'Missing Bearer token', code: 'access_token_missing' })
    const empty = await call(iam, 'GET', '/secret/data', { client: s, cookies: { session: s.refreshToken }, headers: { authorization: 'Bearer ' } })
    expect(empty.status).toBe(401)
    expect(await empty.json()).toEqual({ ok: false, date: expect.any(String), error: 'Access token missing', code: 'access_token_missing' })
  })

  it('answers 401 Refresh token missing without the session cookie', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.62' } })
    const res = await call(iam, 'GET', '/secret/data', { client: s, bearer: s.accessToken })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Refresh token missing', code: 'session_missing' })
  })

  it('answers 401 for an access token that fails verification', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.63' } })
    const res = await authedGet(iam, { ...s, accessToken: `${s.accessToken.slice(0, -4)}AAAA` })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid access token', code: 'access_token_invalid' })
  })
})

describe('GET /secret/accesstoken/metadata', () => {
  it('answers 200 with the payload, msUntilExp, refreshThreshold (25% of the TTL) and shouldRotate', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.64' } })
    const res = await authedGet(iam, s, '/secret/accesstoken/metadata')
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(body).toMatchObject({ authorized: true, refreshThreshold: 225_000, shouldRotate: false, roles: ['user'], email: s.email, emailVerified: false, name: 'Test User' })
    // `sub` is the person's public id; userId is the account's serial number (req.user.userId)
    expect((body.payload as Json).sub).not.toBe(String(body.userId))
    expect(body.payload).toMatchObject({ sub: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), sid: expect.any(String), jti: expect.any(String), roles: ['user'] })
    expect(body.msUntilExp).toBeGreaterThan(225_000)
    expect(body.msUntilExp).toBeLessThanOrEqual(900_000)
  })

  it('is cookie-only: a query string answers 400', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.65' } })
    const res = await authedGet(iam, s, '/secret/accesstoken/metadata?x=1')
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: 'Query string not allowed' })
  })
})
