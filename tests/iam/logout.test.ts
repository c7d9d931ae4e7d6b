import { describe, expect, it } from 'vitest'
import { authedGet, call, refresh, setCookieLine, signupUser, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { sharedIam } from '../helpers/shared-iam'

const iam = sharedIam()

const logout = (s: Session, opts: { bearer?: string; session?: string; query?: string } = {}) =>
  call(iam, 'POST', `/auth/logout${opts.query ?? ''}`, {
    client: s,
    cookies: { session: 'session' in opts ? opts.session : s.refreshToken },
    bearer: 'bearer' in opts ? opts.bearer : s.accessToken,
  })

describe('POST /auth/logout', () => {
  it('revokes the session (200) and clears the session cookie', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.70' } })
    const res = await logout(s)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, date: expect.any(String) })
    expect(setCookieLine(res, 'session')).toMatch(/^session=;.*Max-Age=0/i)
    expect((await refresh(iam, s)).status).toBe(401)
    expect((await authedGet(iam, s)).status).toBe(401)
  })

  it('answers 401 without the Bearer header', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.71' } })
    const res = await call(iam, 'POST', '/auth/logout', { client: s, cookies: { session: s.refreshToken } })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Missing Bearer token', code: 'access_token_missing' })
  })

  it('answers 401 without the session cookie', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.72' } })
    const res = await logout(s, { session: undefined })
    expect(res.status).toBe(401)
    expect(((await res.json()) as Json).error).toBe('Refresh token missing')
  })

  it('answers 400 for a query string', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.73' } })
    const res = await logout(s, { query: '?a=1' })
    expect(res.status).toBe(400)
  })

  it('answers 200 again for a session already logged out', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.74' } })
    expect((await logout(s)).status).toBe(200)
    expect((await logout(s)).status).toBe(200)
  })
})
