/**
 * Every route of the table is one unit (iam/http/route.ts): its entry's authentication and guards
 * run before anything of the route. The routes come from the table (tests/iam/route-table.ts), so
 * a new route is held to its entry without touching this file.
 * - auth 'full' is full authentication, not a presence check: a session that was revoked (logged
 *   out, or ended by another session of the account) keeps well-formed, unexpired credentials,
 *   and every such route answers them 401, never 2xx;
 * - guard 'recent-sign-in': a session whose sign-in proof is older than
 *   security.reauthenticateWithinMs answers 403 `reauthenticate: true`, a fresh one does not;
 * - guard 'verified-email': an account whose address was never confirmed answers 403
 *   `verifyEmail: true`, a confirmed one does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteGuard } from '../../iam/contract/define'
import { authedGet, call, loginUser, newDevice, PROXY_CONFIG, refresh, applyRefresh, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { signupConfirmed } from '../helpers/confirm-email'
import { startIam, type IamEndpoint, type IamServer, type Json } from '../helpers/iam-server'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { FULL_AUTH, TABLE, type TableRoute } from './route-table'
import { WIDE_LOGIN } from './second-factor-http'

/**
 * The route called as the session: its credentials, the link query where it takes one, and an
 * empty JSON object where its request is JSON (the body rules pass; the route's own checks come
 * after its authentication and guards).
 */
function callAs(server: IamEndpoint, route: TableRoute, s: Session): Promise<Response> {
  const body = route.entry.request.kind === 'json' ? {} : undefined
  return call(server, route.method, route.url, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })
}

/** A top-level field of a JSON answer (undefined when the answer is not a JSON object). */
function jsonField(text: string, key: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[key] : undefined
  } catch {
    return undefined
  }
}

const guarded = (guard: RouteGuard) => FULL_AUTH.filter((route) => route.entry.guards?.includes(guard))
// an admin route answers a non-administrator its platform-admin 403 before the age of the proof
// matters: its recent-sign-in window is proven in admin-api.test.ts, on an administrator
const RECENT_SIGN_IN = guarded('recent-sign-in').filter((route) => !route.entry.guards?.includes('platform-admin'))
const VERIFIED_EMAIL = guarded('verified-email')
const PLATFORM_ADMIN = guarded('platform-admin')

const REAUTHENTICATE = { ok: false, date: expect.any(String), error: 'Re-authentication required', code: 'reauthentication_required', reauthenticate: true }

describe('the table (what this file walks)', () => {
  it('has 40+ full-authentication routes, and guards only on full-authentication routes', () => {
    expect(FULL_AUTH.length).toBeGreaterThanOrEqual(40)
    expect(FULL_AUTH.map((route) => `${route.method} ${route.pattern}`)).toContain('POST /auth/change-password')
    expect(TABLE.filter((route) => route.entry.guards?.length && route.entry.auth !== 'full').map((route) => route.id)).toEqual([])
  })

  it('guards adding a second factor with both guards, removing one with recent-sign-in', () => {
    expect(VERIFIED_EMAIL.map((route) => route.pattern)).toContain('/auth/totp/setup')
    expect(RECENT_SIGN_IN.map((route) => route.pattern)).toEqual(expect.arrayContaining(['/auth/totp/setup', '/auth/totp/disable', '/auth/passkeys/delete']))
  })
})

describe('auth full: a revoked session is refused on every full-authentication route', () => {
  const iam = sharedIam()
  /** logged out (POST /auth/logout) */
  let loggedOut: Session
  /** ended by another session of the account (POST /auth/sessions/revoke-others) */
  let endedByOther: Session

  beforeAll(async () => {
    loggedOut = await signupUser(iam, { client: { ip: '203.0.113.171' } })
    expect((await authedGet(iam, loggedOut)).status).toBe(200)
    const logout = await call(iam, 'POST', '/auth/logout', { client: loggedOut, cookies: { session: loggedOut.refreshToken }, bearer: loggedOut.accessToken })
    expect(logout.status).toBe(200)

    endedByOther = await signupUser(iam, { client: { ip: '203.0.113.172' } })
    expect((await authedGet(iam, endedByOther)).status).toBe(200)
    const other = await loginUser(iam, endedByOther.email, endedByOther.password, await newDevice(iam, { ip: '203.0.113.173' }))
    const revoked = await call(iam, 'POST', '/auth/sessions/revoke-others', { client: other, cookies: { session: other.refreshToken }, bearer: other.accessToken, body: {} })
    expect(revoked.status).toBe(200)
    expect(((await revoked.json()) as Json).data).toEqual({ revoked: 1 })
  })

  for (const route of FULL_AUTH) {
    it(`${route.method} ${route.pattern} answers 401 to the credentials of a logged-out session and of one ended by another session`, async () => {
      for (const [name, session] of [['logged out', loggedOut], ['ended by another session', endedByOther]] as const) {
        const res = await callAs(iam, route, session)
        const text = await res.text()
        expect(res.status >= 200 && res.status < 300, `${name}: answered ${res.status} ${text}`).toBe(false)
        expect(res.status, `${name}: ${text}`).toBe(401)
        expect(JSON.parse(text)).toMatchObject({ ok: false })
      }
    })
  }
})

describe('guard platform-admin: an account that is not a platform administrator is refused on every route with the guard', () => {
  const iam = sharedIam()
  let member: Session
  beforeAll(async () => {
    member = await signupUser(iam, { client: { ip: '203.0.113.178' } })
  })

  it('guards every /admin route, and only those', () => {
    expect(PLATFORM_ADMIN.map((route) => route.pattern)).toEqual(TABLE.filter((route) => route.pattern.startsWith('/admin')).map((route) => route.pattern))
    expect(PLATFORM_ADMIN.length).toBeGreaterThanOrEqual(10)
  })

  for (const route of PLATFORM_ADMIN) {
    it(`${route.method} ${route.pattern} answers 403 Platform administrators only to a fresh, confirmed-or-not member`, async () => {
      const refused = await callAs(iam, route, member)
      const body = (await refused.json()) as Json
      expect(refused.status, JSON.stringify(body)).toBe(403)
      expect(body).toEqual({ ok: false, date: expect.any(String), error: 'Platform administrators only', code: 'not_admin' })
    })
  }
})

describe("guard verified-email: an unconfirmed account is refused on every route with the guard", () => {
  const iam = sharedIam()
  const mails = sharedSmtp()
  let unconfirmed: Session
  let confirmed: Session
  beforeAll(async () => {
    unconfirmed = await signupUser(iam, { client: { ip: '203.0.113.174' } })
    confirmed = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.175' } })
  })

  for (const route of VERIFIED_EMAIL) {
    it(`${route.method} ${route.pattern} answers 403 verifyEmail to an account whose address was never confirmed, and not to a confirmed one`, async () => {
      const refused = await callAs(iam, route, unconfirmed)
      const body = (await refused.json()) as Json
      expect(refused.status, JSON.stringify(body)).toBe(403)
      expect(body).toMatchObject({ ok: false, verifyEmail: true })
      // the same call from a confirmed account (fresh sign-in) gets past the guard
      const passed = await callAs(iam, route, confirmed)
      const passedBody = await passed.text()
      expect(jsonField(passedBody, 'verifyEmail'), `${passed.status} ${passedBody}`).toBeUndefined()
      expect(passed.status, passedBody).toBeLessThan(500)
    })
  }
})

describe('guard recent-sign-in: a session past the re-authentication window is refused on every route with the guard', () => {
  /** its own IAM: the file moves its clock */
  let iam: IamServer
  /** signed in, then the clock moved past security.reauthenticateWithinMs (its access token refreshed) */
  let stale: Session
  /** signed in after the clock moved */
  let fresh: Session
  const WINDOW_MS = 60_000

  beforeAll(async () => {
    iam = await startIam({ config: { ...PROXY_CONFIG, ...WIDE_LOGIN, security: { reauthenticateWithinMs: WINDOW_MS } }, env: CLOCK_ENV })
    const mails = { dataDir: iam.dataDir }
    stale = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.176' } })
    await advanceClock(iam, WINDOW_MS + 1_000)
    // the session itself is still good: its refresh gives a new access token, the sign-in proof stays as old
    stale = await applyRefresh(stale, await refresh(iam, stale))
    expect((await authedGet(iam, stale)).status).toBe(200)
    fresh = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.177' } })
  }, 180_000)
  afterAll(() => iam?.stop())

  for (const route of RECENT_SIGN_IN) {
    it(`${route.method} ${route.pattern} answers 403 reauthenticate to a session whose sign-in proof is past the window, and not to a fresh one`, async () => {
      const refused = await callAs(iam, route, stale)
      const body = (await refused.json()) as Json
      expect(refused.status, JSON.stringify(body)).toBe(403)
      expect(body).toEqual(REAUTHENTICATE)
      const passed = await callAs(iam, route, fresh)
      const passedBody = await passed.text()
      expect(jsonField(passedBody, 'reauthenticate'), `${passed.status} ${passedBody}`).toBeUndefined()
      expect(passed.status, passedBody).toBeLessThan(500)
    })
  }

  it('lets the stale session through again once it re-authenticates (the refusal was the age of its proof)', async () => {
    const proven = await call(iam, 'POST', '/auth/reauthenticate', { client: stale, cookies: { session: stale.refreshToken }, bearer: stale.accessToken, body: { password: STRONG_PASSWORD } })
    expect(proven.status, await proven.clone().text()).toBe(200)
    for (const route of RECENT_SIGN_IN) {
      const res = await callAs(iam, route, stale)
      const text = await res.text()
      expect(jsonField(text, 'reauthenticate'), `${route.method} ${route.pattern}: ${res.status} ${text}`).toBeUndefined()
    }
  })
})
