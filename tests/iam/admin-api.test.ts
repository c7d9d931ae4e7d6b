/**
 * The platform administrators' HTTP API (/admin/*, features/admin, docs/administration.md) on an
 * IAM of its own: the file moves its clock past the admin re-authentication window. The role is
 * granted by the test build's route that does what `users:grant-admin` does (the CLI itself is
 * proven in admin-cli.test.ts; on PGlite it cannot open the data dir while the IAM holds it).
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROUTES } from '../../iam/contract/routes'
import type { RouteContract } from '../../iam/contract/define'
import { applyRefresh, call, loginUser, newDevice, PROXY_CONFIG, refresh, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { linkQueryOf } from '../helpers/smtp'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { newToken, verify, WIDE_LIMITERS } from './api-tokens-http'
import { registerPasskey } from './passkeys-http'
import { concretePath } from './route-table'
import { authed, enrolTotp, WIDE_LOGIN } from './second-factor-http'

const START_TIMEOUT_MS = 180_000
const ADMIN_WINDOW_MS = 10 * 60_000
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

const ADMIN_ROUTES = (Object.entries(ROUTES) as Array<[string, RouteContract]>).filter(([, entry]) => entry.path.startsWith('/admin'))
/** Every admin route with a well-formed (unknown) id and a body its schema takes. */
const adminCall = (iam: IamServer, s: Session, entry: RouteContract) =>
  authed(iam, s, entry.method, concretePath(entry.path), entry.request.kind === 'json' ? (entry.path.endsWith('/factors/remove') ? { kind: 'totp' } : {}) : undefined)

let iam: IamServer
let mails: { dataDir: string }
let admin: Session
let adminId: string
/** how far the IAM's clock is ahead of this process's once the file moved it (TOTP codes follow it) */
let skewMs = 0

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
  const res = await asAdmin('GET', `/admin/users?q=${encodeURIComponent(email)}`)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  const users = (body.data as { users: Array<{ id: string; email: string }> }).users
  const found = users.find((u) => u.email === email)
  expect(found, `${email} not found by the search`).toBeDefined()
  return found!.id
}

async function detailOf(publicId: string): Promise<Json> {
  const res = await asAdmin('GET', `/admin/users/${publicId}`)
  const body = await json(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body.data as Json
}

/** The target's event of `type` recorded by the administrator. */
async function adminEvent(publicId: string, type: string): Promise<Json | undefined> {
  const detail = await detailOf(publicId)
  return (detail.securityEvents as Json[]).find((e) => e.type === type && (e.details as Json).adminId === adminId)
}

beforeAll(async () => {
  iam = await startIam({
    config: { ...PROXY_CONFIG, rate_limiters: { ...WIDE_LOGIN.rate_limiters, apiTokensLimiters: WIDE_LIMITERS } },
    env: CLOCK_ENV,
  })
  mails = { dataDir: iam.dataDir }
  admin = await signupUser(iam, { client: { ip: '203.0.113.201' } })
  await grantAdmin(admin.email)
  adminId = await publicIdOf(admin.email)
}, START_TIMEOUT_MS)
afterAll(() => iam?.stop())

describe('who may call /admin', () => {
  it('has the thirty-one admin routes (four of them the mail templates, ten the webhooks, three the OpenID clients, one the sign-up statistics), each with both guards', () => {
    expect(ADMIN_ROUTES).toHaveLength(31)
    for (const [id, entry] of ADMIN_ROUTES) expect(entry.guards, id).toEqual(['platform-admin', 'recent-sign-in'])
  })

  it('refuses a signed-in account that is not an administrator with the same 403 on every admin route', async () => {
    const member = await signupUser(iam, { client: { ip: '203.0.113.202' } })
    const bodies = new Set<string>()
    for (const [id, entry] of ADMIN_ROUTES) {
      const res = await adminCall(iam, member, entry)
      const body = await json(res)
      expect(res.status, `${id}: ${JSON.stringify(body)}`).toBe(403)
      expect(body).toMatchObject({ ok: false, error: 'Platform administrators only' })
      expect(body.reauthenticate).toBeUndefined()
      const { date: _date, ...rest } = body
      bodies.add(JSON.stringify(rest))
    }
    expect(bodies.size).toBe(1)
  })

  it('refuses an administrator whose sign-in proof is older than 10 minutes (reauthenticate), until it re-authenticates', async () => {
    skewMs = (await advanceClock(iam, ADMIN_WINDOW_MS + 60_000)) - Date.now()
    admin = await applyRefresh(admin, await refresh(iam, admin))
    for (const [id, entry] of ADMIN_ROUTES) {
      const res = await adminCall(iam, admin, entry)
      const body = await json(res)
      expect(res.status, `${id}: ${JSON.stringify(body)}`).toBe(403)
      expect(body).toMatchObject({ ok: false, reauthenticate: true })
    }
    const proven = await authed(iam, admin, 'POST', '/auth/reauthenticate', { password: STRONG_PASSWORD })
    expect(proven.status, await proven.clone().text()).toBe(200)
    expect((await asAdmin('GET', '/admin/users?limit=1')).status).toBe(200)
  })

  it('refuses an administrator whose role was revoked on the next request', async () => {
    const other = await signupUser(iam, { client: { ip: '203.0.113.203' } })
    await grantAdmin(other.email)
    expect((await authed(iam, other, 'GET', '/admin/users?limit=1')).status).toBe(200)
    await grantAdmin(other.email, false)
    const refused = await authed(iam, other, 'GET', '/admin/users?limit=1')
    expect(refused.status).toBe(403)
    expect(await json(refused)).toMatchObject({ error: 'Platform administrators only' })
  })
})

describe('GET /admin/users: search and cursor paging', () => {
  it('finds accounts by email prefix, case-insensitively, a page at a time', async () => {
    const tag = `adminsearch${Date.now().toString(36)}`
    const emails = [1, 2, 3].map((n) => `${tag}.${n}@example.com`)
    for (const email of emails) await signupUser(iam, { email, client: { ip: '203.0.113.204' } })
    const first = await json(await asAdmin('GET', `/admin/users?q=${tag.toUpperCase()}&limit=2`))
    const page1 = first.data as { users: Array<{ email: string; admin: boolean }>; next: string | null }
    expect(page1.users.map((u) => u.email)).toEqual(emails.slice(0, 2))
    expect(page1.users.every((u) => u.admin === false)).toBe(true)
    expect(page1.next).toEqual(expect.any(String))
    const second = await json(await asAdmin('GET', `/admin/users?q=${tag}&limit=2&cursor=${page1.next}`))
    const page2 = second.data as { users: Array<{ email: string }>; next: string | null }
    expect(page2.users.map((u) => u.email)).toEqual(emails.slice(2))
    expect(page2.next).toBeNull()
    // LIKE's wildcards are taken literally
    expect(((await json(await asAdmin('GET', `/admin/users?q=${tag.slice(0, 5)}_`))).data as { users: unknown[] }).users).toEqual([])
  })

  it('answers 400 to a bad limit or cursor, 404 to an unknown user and 400 to a malformed id', async () => {
    expect((await asAdmin('GET', '/admin/users?limit=0')).status).toBe(400)
    expect((await asAdmin('GET', '/admin/users?cursor=bm9wZQ')).status).toBe(400)
    expect((await asAdmin('GET', '/admin/users/00000000-0000-4000-8000-000000000001')).status).toBe(404)
    expect((await asAdmin('POST', '/admin/users/00000000-0000-4000-8000-000000000001/unban')).status).toBe(404)
    expect((await asAdmin('GET', '/admin/users/not-an-id')).status).toBe(400)
  })
})

describe('GET /admin/users/:userId: the detail', () => {
  it('shows sessions, factors, API tokens and organizations, and never a secret or a hash', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.205' } })
    const totp = await enrolTotp(iam, user, skewMs)
    const token = await newToken(iam, user)
    const slug = `adm-${Date.now().toString(36)}`
    const org = await authed(iam, user, 'POST', '/orgs', { name: 'Admin Test Org', slug })
    expect(org.status, await org.clone().text()).toBe(201)
    const publicId = await publicIdOf(user.email)
    const detail = await detailOf(publicId)

    expect(detail.user).toMatchObject({ id: publicId, email: user.email, emailVerified: true, admin: false, hasPassword: true })
    expect((detail.sessions as Json[]).length).toBeGreaterThanOrEqual(1)
    expect(detail.factors).toMatchObject({ totp: { enabled: true }, recoveryCodesLeft: totp.recoveryCodes.length })
    expect((detail.apiTokens as Json[]).map((t) => t.publicIdentifier)).toContain(token.rawPublicId)
    expect((detail.organizations as Json[]).map((o) => o.slug)).toContain(slug)
    expect((detail.securityEvents as Json[]).map((e) => e.type)).toEqual(expect.arrayContaining(['signed_up', 'second_factor_added', 'api_token_created']))

    const text = JSON.stringify(detail)
    const secrets = [
      totp.secret,
      ...totp.recoveryCodes,
      token.rawApiKey,
      sha256(token.rawApiKey),
      user.refreshToken,
      sha256(user.refreshToken),
      user.accessToken,
    ]
    for (const secret of secrets) expect(text.includes(secret), `the detail holds ${secret}`).toBe(false)
    expect(text).not.toMatch(/\$argon2|password_?hash|secret_sealed|hashed_token|token_hash|public_key/i)
  })
})

describe('an account waiting for its deletion', () => {
  it('carries deletionDueAt in the detail and the search list once the owner confirmed the deletion, null before', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.214' } })
    const publicId = await publicIdOf(user.email)
    const listed = async () => ((await json(await asAdmin('GET', `/admin/users?q=${encodeURIComponent(user.email)}`))).data as { users: Json[] }).users.find((u) => u.id === publicId)
    expect(((await detailOf(publicId)).user as Json).deletionDueAt).toBeNull()
    expect((await listed())?.deletionDueAt).toBeNull()

    expect((await authed(iam, user, 'POST', '/auth/delete-account')).status).toBe(202)
    const confirm = linkQueryOf(await mailTo(mails, user.email, (m) => (m.text ?? '').includes('reason=DELETE_ACCOUNT&')))
    const confirmed = await call(iam, 'POST', `/auth/delete-account/confirm${confirm}`, { client: user })
    const dueAt = ((await json(confirmed)).data as { dueAt: string }).dueAt
    expect(confirmed.status).toBe(200)

    expect(((await detailOf(publicId)).user as Json).deletionDueAt).toBe(dueAt)
    expect((await listed())?.deletionDueAt).toBe(dueAt)
  })
})

describe('the actions, each recorded with the administrator id', () => {
  it('verify-email marks the address confirmed', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.206' } })
    const publicId = await publicIdOf(user.email)
    const res = await asAdmin('POST', `/admin/users/${publicId}/verify-email`)
    expect(await json(res)).toMatchObject({ ok: true, data: { wasVerified: false } })
    expect(((await detailOf(publicId)).user as Json).emailVerified).toBe(true)
    expect(await adminEvent(publicId, 'admin_email_verified')).toBeDefined()
  })

  it('reset-link mails the account a password reset link', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.207' } })
    const publicId = await publicIdOf(user.email)
    const res = await asAdmin('POST', `/admin/users/${publicId}/reset-link`)
    expect(await json(res)).toMatchObject({ ok: true, data: { sent: true } })
    const mail = await mailTo(mails, user.email, (m) => /reset your password/i.test(m.subject ?? ''))
    expect(mail.text ?? '').toMatch(/token=/)
    expect(await adminEvent(publicId, 'admin_reset_link_sent')).toBeDefined()
  })

  it('factors/remove takes the authenticator app away (then 404), and the account signs in with its password alone', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.208' } })
    await enrolTotp(iam, user, skewMs)
    const publicId = await publicIdOf(user.email)
    const removed = await asAdmin('POST', `/admin/users/${publicId}/factors/remove`, { kind: 'totp' })
    expect(await json(removed)).toMatchObject({ ok: true, data: { removed: 'totp' } })
    expect((await asAdmin('POST', `/admin/users/${publicId}/factors/remove`, { kind: 'totp' })).status).toBe(404)
    expect((await asAdmin('POST', `/admin/users/${publicId}/factors/remove`, { kind: 'passkey', id: 999_999 })).status).toBe(404)
    expect((await asAdmin('POST', `/admin/users/${publicId}/factors/remove`, { kind: 'passkey' })).status).toBe(400)
    expect(((await detailOf(publicId)).factors as Json).totp).toBeNull()
    const event = await adminEvent(publicId, 'admin_factor_removed')
    expect(event?.details).toMatchObject({ method: 'totp' })
    await loginUser(iam, user.email, user.password, await newDevice(iam, { ip: '203.0.113.208' }))
  })

  it('factors/remove takes one passkey away (the other stays), recorded with its id, and the owner is told by mail', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.213' } })
    const { id } = await registerPasskey(iam, user, new SoftAuthenticator(), 'Work laptop')
    const { id: kept } = await registerPasskey(iam, user, new SoftAuthenticator(), 'Phone')
    const publicId = await publicIdOf(user.email)
    const passkeysOf = async () => ((await detailOf(publicId)).factors as { passkeys: Array<{ id: number; name: string }> }).passkeys
    expect((await passkeysOf()).map((p) => p.id).sort()).toEqual([id, kept].sort())
    const removed = await asAdmin('POST', `/admin/users/${publicId}/factors/remove`, { kind: 'passkey', id })
    expect(await json(removed)).toMatchObject({ ok: true, data: { removed: 'passkey' } })
    expect((await passkeysOf()).map((p) => p.id)).toEqual([kept])
    expect((await asAdmin('POST', `/admin/users/${publicId}/factors/remove`, { kind: 'passkey', id })).status).toBe(404)
    const event = await adminEvent(publicId, 'admin_factor_removed')
    expect(event?.details).toMatchObject({ method: 'passkey', passkeyId: id, by: 'admin', adminId })
    await mailTo(mails, user.email, (m) => /a passkey was removed/i.test(`${m.subject ?? ''} ${m.text ?? ''}`))
  })

  it('refuses to ban the administrator themself (409, in words), and records nothing', async () => {
    const res = await asAdmin('POST', `/admin/users/${adminId}/ban`, { reason: 'testing' })
    expect(res.status).toBe(409)
    expect(await json(res)).toMatchObject({ ok: false, error: 'You cannot ban your own account' })
    expect(await adminEvent(adminId, 'user_banned')).toBeUndefined()
    expect((await asAdmin('GET', '/admin/users?limit=1')).status).toBe(200)
  })

  it('sessions/revoke ends every session of the account', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.209' } })
    const second = await loginUser(iam, user.email, user.password, await newDevice(iam, { ip: '203.0.113.210' }))
    const publicId = await publicIdOf(user.email)
    const res = await asAdmin('POST', `/admin/users/${publicId}/sessions/revoke`)
    expect(await json(res)).toMatchObject({ ok: true, data: { revoked: 2 } })
    expect((await refresh(iam, user)).status).toBe(401)
    expect((await refresh(iam, second)).status).toBe(401)
    expect((await authed(iam, second, 'GET', '/secret/data')).status).toBe(401)
    expect((await adminEvent(publicId, 'admin_sessions_revoked'))?.details).toMatchObject({ revokedSessions: 2 })
  })

  it('ban ends the sessions, suspends the API tokens and refuses sign-in; unban lifts it', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.211' } })
    const token = await newToken(iam, user)
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(200)
    const publicId = await publicIdOf(user.email)

    expect((await asAdmin('POST', `/admin/users/${publicId}/ban`, { reason: 'spam', until: '2001-01-01T00:00:00Z' })).status).toBe(400)
    const ban = await asAdmin('POST', `/admin/users/${publicId}/ban`, { reason: 'Repeated spam in the forum' })
    expect(await json(ban)).toMatchObject({ ok: true, data: { until: null, reason: 'Repeated spam in the forum', sessionsEnded: 1, tokensSuspended: 1 } })
    expect((await refresh(iam, user)).status).toBe(401)
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(401)
    const login = await call(iam, 'POST', '/login', { client: user, body: { email: user.email, password: STRONG_PASSWORD } })
    expect(login.status).toBe(403)
    // until lifted: no date in the year 9999 reaches anyone
    expect(await json(login)).toMatchObject({ ok: false, code: 'account_banned', banned: true, until: null, reason: 'Repeated spam in the forum' })
    const detail = await detailOf(publicId)
    expect((detail.user as Json).bannedUntil).toEqual(expect.any(String))
    expect((detail.user as Json).suspension).toEqual({ until: null, reason: 'Repeated spam in the forum' })
    expect((await adminEvent(publicId, 'user_banned'))?.details).toMatchObject({ by: 'admin', sessionsEnded: 1, tokensSuspended: 1 })

    const unban = await asAdmin('POST', `/admin/users/${publicId}/unban`)
    expect(await json(unban)).toMatchObject({ ok: true, data: { wasBanned: true } })
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(200)
    await loginUser(iam, user.email, user.password, user)
    expect(await adminEvent(publicId, 'user_unbanned')).toBeDefined()
    expect(((await detailOf(publicId)).user as Json).suspension).toBeNull()
  })

  it('a suspension needs a reason of at most 500 characters, and an end date or a duration, not both (400 validation_failed)', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.213' } })
    const publicId = await publicIdOf(user.email)
    const bodies = [{}, { reason: '   ' }, { reason: 'x'.repeat(501) }, { reason: 'spam', until: '2100-01-01T00:00:00Z', durationMs: 86_400_000 }, { reason: 'spam', durationMs: 10 }]
    for (const body of bodies) {
      const res = await asAdmin('POST', `/admin/users/${publicId}/ban`, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect((await json(res)).code).toBe('validation_failed')
    }
    await loginUser(iam, user.email, user.password, user)
  })

  it('tells the person signing in until when and why they are suspended, and a suspension past its end lets them in again without an administrator', async () => {
    const user = await signupUser(iam, { client: { ip: '203.0.113.214' } })
    const publicId = await publicIdOf(user.email)
    const ban = await asAdmin('POST', `/admin/users/${publicId}/ban`, { reason: 'Chargeback under review', durationMs: 2 * 60_000 })
    const until = ((await json(ban)).data as { until: string }).until
    expect(new Date(until).getTime()).toBeGreaterThan(Date.now() + skewMs)
    const login = await call(iam, 'POST', '/login', { client: user, body: { email: user.email, password: STRONG_PASSWORD } })
    expect(await json(login)).toMatchObject({ code: 'account_banned', until, reason: 'Chargeback under review' })
    expect(((await detailOf(publicId)).user as Json).suspension).toEqual({ until, reason: 'Chargeback under review' })
    skewMs = (await advanceClock(iam, 2 * 60_000 + 1_000)) - Date.now()
    await loginUser(iam, user.email, user.password, user)
    expect(((await detailOf(publicId)).user as Json).suspension).toBeNull()
  })
})

describe('GET /admin/orgs', () => {
  it('lists organizations by slug prefix, and shows one with its members', async () => {
    const owner = await signupUser(iam, { client: { ip: '203.0.113.212' } })
    const slug = `admorg-${Date.now().toString(36)}`
    const created = await authed(iam, owner, 'POST', '/orgs', { name: 'Listed Org', slug })
    const orgId = ((await json(created)).data as { org: { id: string } }).org.id
    const list = await json(await asAdmin('GET', `/admin/orgs?q=${slug}`))
    expect((list.data as { orgs: Json[] }).orgs).toEqual([expect.objectContaining({ id: orgId, slug, name: 'Listed Org', members: 1 })])
    const detail = await json(await asAdmin('GET', `/admin/orgs/${orgId}`))
    expect((detail.data as { members: Json[] }).members).toEqual([expect.objectContaining({ email: owner.email, role: 'owner' })])
    expect((await asAdmin('GET', '/admin/orgs/00000000-0000-4000-8000-00000000000a')).status).toBe(404)
  })
})
