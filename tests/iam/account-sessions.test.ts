/**
 * The account's sessions: GET /auth/sessions, POST /auth/sessions/revoke and
 * POST /auth/sessions/revoke-others. A revoked session's refresh and access tokens stop working on
 * the next request, on this instance and (PostgreSQL + Redis) on another one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, FIREFOX_UA, loginUser, newDevice, refresh, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { SHARED_IAM_CONFIG, sharedIam } from '../helpers/shared-iam'
import { expectDocumented } from './documented'
import { skippedWithout, titled } from '../helpers/skip-notes'

// the run's shared IAM: several sessions per user on purpose, and its config lets neither the
// session count nor the velocity rule interfere (50 each) nor the sign-in limits
const iam = sharedIam()

const authed = (s: Session, method: string, path: string, body?: unknown, server = iam) =>
  call(server, method, path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })

async function sessionsOf(s: Session, server = iam): Promise<Json[]> {
  const res = await authed(s, 'GET', '/auth/sessions', undefined, server)
  expect(res.status).toBe(200)
  const body = (await res.json()) as { ok: boolean; data: { sessions: Json[] } }
  expectDocumented('listSessions', 200, body)
  return body.data.sessions
}

/** The session id of `s` as the list names it. */
async function idOf(s: Session): Promise<string> {
  const current = (await sessionsOf(s)).find((x) => x.current)
  if (!current) throw new Error('no current session listed')
  return current.id as string
}

describe('GET /auth/sessions', () => {
  it('lists the live sessions newest first, marks the current one and names device, browser and address', async () => {
    const first = await signupUser(iam, { client: { ip: '198.51.100.20' } })
    const firefox = await newDevice(iam, { ip: '198.51.100.21', ua: FIREFOX_UA })
    const second = await loginUser(iam, first.email, first.password, firefox)
    const listed = await sessionsOf(first)
    expect(listed).toHaveLength(2)
    const [newest, oldest] = listed as [Json, Json]
    expect(newest).toEqual({
      id: expect.any(String),
      current: false,
      createdAt: expect.any(String),
      lastSeenAt: expect.any(String),
      ipAddress: '198.51.100.21',
      browser: 'Firefox',
      os: 'Windows',
    })
    expect(oldest).toMatchObject({ current: true, ipAddress: '198.51.100.20', browser: 'Chrome', os: 'Linux' })
    expect(Date.parse(newest.createdAt as string)).toBeGreaterThanOrEqual(Date.parse(oldest.createdAt as string))
    // from the other session, the marks swap
    expect((await sessionsOf(second)).map((x) => x.current)).toEqual([true, false])
  })

  it('never shows a refresh token, its hash or another user’s session', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.22' } })
    const other = await signupUser(iam, { client: { ip: '198.51.100.23' } })
    const res = await authed(user, 'GET', '/auth/sessions')
    const text = await res.text()
    expect(text).not.toContain(user.refreshToken)
    expect(text).not.toMatch(/[0-9a-f]{64}/)
    expect(text).not.toContain(await idOf(other))
    expect(((JSON.parse(text) as Json).data as { sessions: unknown[] }).sessions).toHaveLength(1)
  })

  it('leaves out sessions that were logged out or revoked', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.24' } })
    const gone = await loginUser(iam, user.email, user.password, user)
    const revoked = await loginUser(iam, user.email, user.password, user)
    expect((await call(iam, 'POST', '/auth/logout', { client: gone, cookies: { session: gone.refreshToken }, bearer: gone.accessToken })).status).toBe(200)
    expect((await authed(user, 'POST', '/auth/sessions/revoke', { id: await idOf(revoked) })).status).toBe(200)
    const listed = await sessionsOf(user)
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ current: true })
  })

  it('requires full authentication (401 without the session cookie or the Bearer token)', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.25' } })
    expect((await call(iam, 'GET', '/auth/sessions', { client: user, bearer: user.accessToken })).status).toBe(401)
    expect((await call(iam, 'GET', '/auth/sessions', { client: user, cookies: { session: user.refreshToken } })).status).toBe(401)
  })
})

describe('POST /auth/sessions/revoke', () => {
  it('ends that session at once: its access token and its refresh token get 401, the caller stays signed in', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.30' } })
    const other = await loginUser(iam, user.email, user.password, await newDevice(iam, { ip: '198.51.100.31' }))
    expect((await authedGet(iam, other)).status).toBe(200)
    const res = await authed(user, 'POST', '/auth/sessions/revoke', { id: await idOf(other) })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({ ok: true, date: expect.any(String), data: { revoked: 1 } })
    expectDocumented('revokeSession', 200, body)
    expect((await authedGet(iam, other)).status).toBe(401)
    expect((await refresh(iam, other)).status).toBe(401)
    expect((await authedGet(iam, user)).status).toBe(200)
  })

  it('answers 404 for an unknown id and for an id already revoked', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.32' } })
    const other = await loginUser(iam, user.email, user.password, user)
    const id = await idOf(other)
    expect((await authed(user, 'POST', '/auth/sessions/revoke', { id })).status).toBe(200)
    const again = await authed(user, 'POST', '/auth/sessions/revoke', { id })
    expect(again.status).toBe(404)
    const body = await again.json()
    expect(body).toEqual({ ok: false, date: expect.any(String), error: 'Session not found', code: 'session_not_found' })
    expectDocumented('revokeSession', 404, body)
    const unknown = await authed(user, 'POST', '/auth/sessions/revoke', { id: '00000000-0000-4000-8000-000000000000' })
    expect(unknown.status).toBe(404)
  })

  it('answers 400 with the field for a missing or malformed id, and 400 for a body that is not JSON', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.33' } })
    for (const body of [{}, { id: 42 }, { id: '' }, { id: 'x'.repeat(101) }]) {
      const res = await authed(user, 'POST', '/auth/sessions/revoke', body)
      expect(res.status).toBe(400)
      expect(((await res.json()) as Json).fields).toMatchObject({ id: expect.any(String) })
    }
    const raw = await call(iam, 'POST', '/auth/sessions/revoke', {
      client: user,
      cookies: { session: user.refreshToken },
      bearer: user.accessToken,
      headers: { 'content-type': 'text/plain' },
    })
    expect(raw.status).toBeGreaterThanOrEqual(400)
    expect(raw.status).toBeLessThan(500)
  })
})

describe('POST /auth/sessions/revoke-others', () => {
  it('ends every other session, counts them, and keeps this one', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.40' } })
    const others = [await loginUser(iam, user.email, user.password, user), await loginUser(iam, user.email, user.password, user)]
    const res = await authed(user, 'POST', '/auth/sessions/revoke-others', {})
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({ ok: true, date: expect.any(String), data: { revoked: 2 } })
    expectDocumented('revokeOtherSessions', 200, body)
    for (const other of others) {
      expect((await authedGet(iam, other)).status).toBe(401)
      expect((await refresh(iam, other)).status).toBe(401)
    }
    expect((await sessionsOf(user)).map((s) => s.current)).toEqual([true])
    const again = await authed(user, 'POST', '/auth/sessions/revoke-others', {})
    expect(await again.json()).toMatchObject({ data: { revoked: 0 } })
  })
})

// Two instances on one PostgreSQL database and one Redis. On the embedded defaults each instance
// has its own in-memory database, so "another instance" cannot be built and the test is skipped.
// Two instances share state only through PostgreSQL + Redis; the embedded defaults are one process's own.
describe.skipIf(skippedWithout('postgres+redis'))(titled('revocation across instances (PostgreSQL + Redis)', 'postgres+redis'), () => {
  let second: IamServer
  beforeAll(async () => {
    second = await startIam({ config: SHARED_IAM_CONFIG, share: iam.share })
  }, 240_000)
  afterAll(() => second?.stop())

  it('a session revoked on instance A gets 401 for its access token on instance B at the next request', async () => {
    const user = await signupUser(iam, { client: { ip: '198.51.100.50' } })
    const other = await loginUser(iam, user.email, user.password, await newDevice(iam, { ip: '198.51.100.51' }))
    expect((await authedGet(second, other)).status).toBe(200)
    expect((await authed(user, 'POST', '/auth/sessions/revoke', { id: await idOf(other) })).status).toBe(200)
    expect((await authedGet(second, other)).status).toBe(401)
    expect((await refresh(second, other)).status).toBe(401)
    expect((await authed(user, 'GET', '/auth/sessions', undefined, second)).status).toBe(200)
  })
})
