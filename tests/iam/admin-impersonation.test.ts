/**
 * Impersonation (POST /admin/users/:userId/impersonate, features/admin/impersonation.ts,
 * docs/administration.md) on an IAM of its own: the file moves its clock past the session's hard
 * end. The administrator role is granted by the test build's route that does what
 * `users:grant-admin` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refusedWhileImpersonating, type RouteContract } from '../../iam/contract/define'
import { ROUTES } from '../../iam/contract/routes'
import { applyRefresh, call, loginUser, PROXY_CONFIG, refresh, setCookieValue, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { concretePath } from './route-table'
import { authed, WIDE_LOGIN } from './second-factor-http'

const START_TIMEOUT_MS = 180_000
const IMPERSONATION_MS = 15 * 60_000

let iam: IamServer
let admin: Session
let adminId: string

async function json(res: Response): Promise<Json> {
  const text = await res.text()
  try {
    return JSON.parse(text) as Json
  } catch {
    throw new Error(`not JSON (${res.status}): ${text}`)
  }
}

async function grantAdmin(email: string, granted = true): Promise<void> {
  const res = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, admin: granted }) })
  expect(res.status, await res.clone().text()).toBe(200)
}

const asAdmin = (method: string, path: string, body?: unknown) => authed(iam, admin, method, path, body)

async function publicIdOf(email: string): Promise<string> {
  const body = await json(await asAdmin('GET', `/admin/users?q=${encodeURIComponent(email)}`))
  const found = (body.data as { users: Array<{ id: string; email: string }> }).users.find((u) => u.email === email)
  expect(found, `${email} not found by the search`).toBeDefined()
  return found!.id
}

/** `/admin/users/:userId` as OpenAPI writes it: `/admin/users/{userId}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}')

/** The claims of a JWT (its signature is the IAM's business; the tests read what it says). */
const claimsOf = (token: string): Json => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Json

/** Impersonates `publicId`; the session on the account's behalf, on the administrator's device. */
async function impersonate(publicId: string): Promise<{ session: Session; body: Json }> {
  const res = await asAdmin('POST', `/admin/users/${publicId}/impersonate`)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  const refreshToken = setCookieValue(res, 'session')
  expect(refreshToken, 'the session cookie of the impersonated session').toEqual(expect.any(String))
  return { session: { ...admin, accessToken: body.accessToken as string, refreshToken: refreshToken! }, body }
}

async function eventsOf(s: Session): Promise<Array<{ type: string; details: Json }>> {
  const res = await authed(iam, s, 'GET', '/auth/security-events?limit=50')
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return (body.data as { events: Array<{ type: string; details: Json }> }).events
}

beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, ...WIDE_LOGIN }, env: CLOCK_ENV })
  admin = await signupUser(iam, { client: { ip: '203.0.113.221' } })
  await grantAdmin(admin.email)
  adminId = await publicIdOf(admin.email)
}, START_TIMEOUT_MS)
afterAll(() => iam?.stop())

describe('who a session token names', () => {
  it('names the person by the public id the console shows, never the serial id: after sign-up, sign-in and refresh', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.225' } })
    const publicId = await publicIdOf(user.email)
    expect(claimsOf(user.accessToken).sub).toBe(publicId)
    const signedIn = await loginUser(iam, user.email, STRONG_PASSWORD, user)
    expect(claimsOf(signedIn.accessToken).sub).toBe(publicId)
    const rotated = await applyRefresh(signedIn, await refresh(iam, signedIn))
    expect(claimsOf(rotated.accessToken).sub).toBe(publicId)
    expect(claimsOf(admin.accessToken).sub).toBe(adminId)
    // and the token still works: the IAM finds the person from the session, not from a serial sub
    expect((await authed(iam, rotated, 'GET', '/secret/data')).status).toBe(200)
  })
})

describe('who can be impersonated', () => {
  it('refuses another administrator and the administrator themself with a 403 in words', async () => {
    const other = await signupUser(iam, { client: { ip: '203.0.113.222' } })
    await grantAdmin(other.email)
    const refused = await asAdmin('POST', `/admin/users/${await publicIdOf(other.email)}/impersonate`)
    expect(refused.status).toBe(403)
    expect(await json(refused)).toMatchObject({ ok: false, error: 'Administrators cannot be impersonated' })
    const self = await asAdmin('POST', `/admin/users/${adminId}/impersonate`)
    expect(self.status).toBe(403)
    expect(await json(self)).toMatchObject({ ok: false, error: 'You cannot impersonate yourself' })
  })

  it('answers a banned account exactly as an unknown one (404), and sets no session cookie', async () => {
    const banned = await signupUser(iam, { client: { ip: '203.0.113.223' } })
    const bannedId = await publicIdOf(banned.email)
    expect((await asAdmin('POST', `/admin/users/${bannedId}/ban`, { reason: 'testing' })).status).toBe(200)
    const answers = []
    for (const id of [bannedId, '00000000-0000-4000-8000-0000000000ee']) {
      const res = await asAdmin('POST', `/admin/users/${id}/impersonate`)
      expect(res.status).toBe(404)
      expect(setCookieValue(res, 'session')).toBeUndefined()
      const { date: _date, ...rest } = await json(res)
      answers.push(rest)
    }
    expect(answers[0]).toEqual({ ok: false, error: 'No such user', code: 'user_not_found' })
    expect(answers[1]).toEqual(answers[0])
  })
})

describe('the impersonated session', () => {
  let user: Session
  let userId: string
  let as: Session
  let started: Json

  beforeAll(async () => {
    user = await signupUser(iam, { client: { ip: '203.0.113.224' } })
    userId = await publicIdOf(user.email)
    ;({ session: as, body: started } = await impersonate(userId))
  })

  it("is the account's session, its access token carrying act.sub = the administrator's public id (RFC 8693 section 4.1)", async () => {
    expect(started.impersonation).toMatchObject({ userId, email: user.email, endsAt: expect.any(String) })
    const claims = claimsOf(as.accessToken)
    expect(claims.act).toEqual({ sub: adminId })
    expect(claims.sub).toBe(claimsOf(user.accessToken).sub)
    expect(claims.sub).not.toBe(claimsOf(admin.accessToken).sub)
    // no token of it outlives the session's end
    expect((claims.exp as number) * 1000).toBeLessThanOrEqual(Date.parse((started.impersonation as Json).endsAt as string))
    const seen = await json(await authed(iam, as, 'GET', '/secret/data'))
    expect(seen.userId).toBe((await json(await authed(iam, user, 'GET', '/secret/data'))).userId)
    // an ordinary session of the account carries no act
    expect(claimsOf(user.accessToken).act).toBeUndefined()
  })

  it('keeps act through a refresh', async () => {
    const res = await refresh(iam, as)
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(201)
    as = { ...as, accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
    expect(claimsOf(as.accessToken).act).toEqual({ sub: adminId })
  })

  const REFUSED = (Object.entries(ROUTES) as Array<[string, RouteContract]>).filter(([, entry]) => entry.auth === 'full' && refusedWhileImpersonating(entry))

  it('is refused on the sensitive routes the table marks: password, email, factors, API token secrets, other apps, admin routes', () => {
    const paths = REFUSED.map(([, entry]) => `${entry.method} ${entry.path}`)
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /auth/change-password',
        'POST /auth/set-password',
        'POST /update/email',
        'POST /auth/totp/setup',
        'POST /auth/totp/disable',
        'POST /auth/passkeys/register/options',
        'POST /auth/passkeys/delete',
        'POST /api/manage/new-token',
        'POST /api/manage/rotate',
        'POST /auth/reauthenticate',
        'POST /orgs/:orgId/delete',
        'POST /auth/delete-account',
        'GET /auth/export',
        'GET /admin/users',
        'POST /admin/users/:userId/impersonate',
      ]),
    )
  })

  it('answers 403 impersonated on every such route, before anything else', async () => {
    const openapi = (await (await fetch(`${iam.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>> }
    for (const [id, entry] of REFUSED) {
      const res = await call(iam, entry.method, concretePath(entry.path), {
        client: as,
        cookies: { session: as.refreshToken },
        bearer: as.accessToken,
        body: entry.request.kind === 'json' ? { password: STRONG_PASSWORD } : undefined,
      })
      const body = await json(res)
      expect(res.status, `${id}: ${JSON.stringify(body)}`).toBe(403)
      expect(body, id).toMatchObject({ ok: false, impersonated: true, error: expect.stringMatching(/on behalf of this account/) })
      // the OpenAPI document says so for each such route
      const documented = openapi.paths[openApiPath(entry.path)]?.[entry.method.toLowerCase()]?.responses?.['403']?.description ?? ''
      expect(documented, id).toMatch(/impersonated: true/)
    }
    // the account's own session passes the same guard (it is asked for its password, not refused)
    const own = await authed(iam, user, 'POST', '/auth/change-password', { password: 'wrong password here', newPassword: 'another strong password 77', confirmPassword: 'another strong password 77' })
    expect((await json(own)).impersonated).toBeUndefined()
  })

  it('refuses the data export (GET /auth/export) with 403 impersonated, which the account itself downloads', async () => {
    const res = await authed(iam, as, 'GET', '/auth/export')
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(403)
    expect(body).toMatchObject({ ok: false, impersonated: true, error: expect.stringMatching(/on behalf of this account/) })
    expect((await authed(iam, user, 'GET', '/auth/export')).status).toBe(200)
  })

  it('still does what the owner does every day (read the sessions, the activity)', async () => {
    expect((await authed(iam, as, 'GET', '/auth/sessions')).status).toBe(200)
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(200)
  })

  it("is recorded in the account's activity with the administrator's id, and in the administrator's with the account", async () => {
    const own = (await eventsOf(user)).find((e) => e.type === 'impersonation_started')
    expect(own?.details).toMatchObject({ adminId, userId })
    expect(own?.details.email).toBeUndefined()
    const admins = (await eventsOf(admin)).find((e) => e.type === 'impersonation_started' && e.details.userId === userId)
    expect(admins?.details).toMatchObject({ adminId, email: user.email })
  })

  it('ends with its logout, recorded on both accounts; the session is dead afterwards', async () => {
    const out = await call(iam, 'POST', '/auth/logout', { client: as, cookies: { session: as.refreshToken }, bearer: as.accessToken })
    expect(out.status).toBe(200)
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(401)
    expect((await refresh(iam, as)).status).toBe(401)
    expect((await eventsOf(user)).find((e) => e.type === 'impersonation_ended')?.details).toMatchObject({ adminId, reason: 'logout' })
    expect((await eventsOf(admin)).find((e) => e.type === 'impersonation_ended' && e.details.userId === userId)?.details).toMatchObject({ email: user.email })
    // the owner's own session is untouched
    expect((await authed(iam, user, 'GET', '/secret/data')).status).toBe(200)
  })
})

describe('ending impersonations', () => {
  it("POST /admin/impersonation/end ends every session the administrator opened, each recorded on the account", async () => {
    const a = await signupUser(iam, { client: { ip: '203.0.113.225' } })
    const b = await signupUser(iam, { client: { ip: '203.0.113.226' } })
    const [aId, bId] = [await publicIdOf(a.email), await publicIdOf(b.email)]
    const { session: asA } = await impersonate(aId)
    const { session: asB } = await impersonate(bId)
    const res = await asAdmin('POST', '/admin/impersonation/end')
    expect(await json(res)).toMatchObject({ ok: true, data: { ended: 2 } })
    expect((await authed(iam, asA, 'GET', '/secret/data')).status).toBe(401)
    expect((await authed(iam, asB, 'GET', '/secret/data')).status).toBe(401)
    expect((await eventsOf(a)).find((e) => e.type === 'impersonation_ended')?.details).toMatchObject({ adminId, reason: 'ended_by_admin' })
    expect(await json(await asAdmin('POST', '/admin/impersonation/end'))).toMatchObject({ ok: true, data: { ended: 0 } })
  })

  it("revoking the administrator's role ends the sessions it opened, recorded on the account", async () => {
    const other = await signupUser(iam, { client: { ip: '203.0.113.229' } })
    await grantAdmin(other.email)
    const user = await signupUser(iam, { client: { ip: '203.0.113.230' } })
    const userId = await publicIdOf(user.email)
    const started = await authed(iam, other, 'POST', `/admin/users/${userId}/impersonate`)
    expect(started.status, await started.clone().text()).toBe(200)
    const as: Session = { ...other, accessToken: ((await started.json()) as Json).accessToken as string, refreshToken: setCookieValue(started, 'session')! }
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(200)
    await grantAdmin(other.email, false)
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(401)
    expect((await refresh(iam, as)).status).toBe(401)
    expect((await eventsOf(user)).find((e) => e.type === 'impersonation_ended')?.details).toMatchObject({ reason: 'admin_revoked' })
  })

  it('a ban of the account ends its impersonation at once', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.227' } })
    const userId = await publicIdOf(user.email)
    const { session: as } = await impersonate(userId)
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(200)
    expect((await asAdmin('POST', `/admin/users/${userId}/ban`, { reason: 'testing' })).status).toBe(200)
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(401)
    expect((await refresh(iam, as)).status).toBe(401)
  })
})

describe('the time limit (the clock moves: last in the file)', () => {
  it('lives until its end and not a moment past it, however often it is refreshed', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.228' } })
    const { session, body } = await impersonate(await publicIdOf(user.email))
    let as = session
    const endsAt = Date.parse((body.impersonation as Json).endsAt as string)
    // refreshed shortly before its end: the new tokens still end with it
    await advanceClock(iam, IMPERSONATION_MS - 60_000)
    const res = await refresh(iam, as)
    const refreshed = await json(res)
    expect(res.status, JSON.stringify(refreshed)).toBe(201)
    as = { ...as, accessToken: refreshed.accessToken as string, refreshToken: setCookieValue(res, 'session')! }
    expect((claimsOf(as.accessToken).exp as number) * 1000).toBeLessThanOrEqual(endsAt)
    expect(refreshed.expiresInMs as number).toBeLessThanOrEqual(60_000)
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(200)
    // past the end: neither the session nor its refresh works; the owner's own session lives on
    await advanceClock(iam, 61_000)
    expect((await authed(iam, as, 'GET', '/secret/data')).status).toBe(401)
    expect((await refresh(iam, as)).status).toBe(401)
    const own = await refresh(iam, user)
    expect(own.status).toBe(201)
  })
})
