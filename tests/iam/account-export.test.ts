/**
 * GET /auth/export (features/users/account-export.ts, docs/accounts.md): an account that holds
 * every kind of secret the IAM keeps (a password, a TOTP secret and recovery codes, a passkey, an
 * API token, sessions with their access and refresh tokens, a pending reset link, an OpenID
 * Provider grant and its access token) exports every part of its data, and the file carries none
 * of those secrets, neither as the person holds them nor as the database stores them (read
 * directly once the export is made). Then the guards: a stale sign-in proof is 403, a request
 * without a session is 401.
 *
 * The IAM runs on a data set of its own (tests/iam/admin-cli-run.ts deployment), so the file can
 * read the stored hashes: on PGlite the IAM is stopped while the test reads or writes the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyRefresh, call, loginUser, newDevice, PROXY_CONFIG, refresh, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { mailTo, signupConfirmed } from '../helpers/confirm-email'
import type { IamServer, Json } from '../helpers/iam-server'
import { linkQueryOf } from '../helpers/smtp'
import { connectDatabase } from '../helpers/test-database'
import { SoftAuthenticator } from '../helpers/webauthn-authenticator'
import { cliStage, deployment, type Cleanups, type CliStage, type Deployment } from './admin-cli-run'
import { newToken, WIDE_LIMITERS, type CreatedToken } from './api-tokens-http'
import { registerPasskey } from './passkeys-http'
import { authed, enrolTotp, WIDE_LOGIN, type Enrolment } from './second-factor-http'

const START_TIMEOUT_MS = 180_000
const REAUTH_WINDOW_MS = 10 * 60_000
const EXPORT_POINTS = 3

const cleanups: Cleanups = []
let dep: Deployment
let stage: CliStage
let iam: IamServer
let owner: Session
let other: Session
let totp: Enrolment
let token: CreatedToken
let resetQuery: URLSearchParams
let oidc: { clientId: string; clientSecret: string; grantId: string; accessTokenId: string }
let publicId: string

const exportAs = async (s: Session) => authed(await stage.server(), s, 'GET', '/auth/export')

/** Opens the deployment's database for `run` (on PGlite while the IAM is stopped). */
const withDatabase = <T>(run: (db: Awaited<ReturnType<typeof connectDatabase>>) => Promise<T>) =>
  stage.cliTurn(async () => {
    const db = await connectDatabase(dep.share.databaseUrl)
    try {
      return await run(db)
    } finally {
      await db.destroy()
    }
  })

beforeAll(async () => {
  dep = await deployment(cleanups, {
    ...PROXY_CONFIG,
    rate_limiters: { ...WIDE_LOGIN.rate_limiters, apiTokensLimiters: WIDE_LIMITERS, export: { points: EXPORT_POINTS, duration: 3600, blockDuration: 3600 } },
  })
  stage = cliStage(dep, { env: CLOCK_ENV })
  iam = await stage.server()
  const mails = { dataDir: iam.dataDir }
  owner = await signupConfirmed(iam, mails, { client: { ip: '203.0.113.61' } })
  // a second session of the same account, on another device: listed, not current
  other = await loginUser(iam, owner.email, owner.password, await newDevice(iam, { ip: '203.0.113.62', ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' }))
  totp = await enrolTotp(iam, owner)
  await registerPasskey(iam, owner, new SoftAuthenticator(), 'Work laptop')
  token = await newToken(iam, owner, { name: 'deploy bot', privilege: 'restricted', ipv4: ['198.51.100.7'] })
  const org = await authed(iam, owner, 'POST', '/orgs', { name: 'Export Works', slug: `export-${Date.now().toString(36)}` })
  expect(org.status, await org.clone().text()).toBe(201)
  const forgot = await call(iam, 'POST', '/auth/forgot-password', { client: owner, body: { email: owner.email } })
  expect(forgot.status, await forgot.clone().text()).toBe(200)
  resetQuery = new URLSearchParams(linkQueryOf(await mailTo(mails, owner.email, (m) => /reset your password/i.test(m.subject ?? ''))))
  const client = await fetch(`${iam.url}/__test/oidc-clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Export Wiki', redirectUris: ['https://wiki.example.test/cb'] }),
  })
  expect(client.status, await client.clone().text()).toBe(200)
  const created = (await client.json()) as { client: { clientId: string }; clientSecret: string }
  // the provider's grant and an access token it issued, as its adapter stores them (features/oidc/adapter.ts)
  const nowS = Math.floor(Date.now() / 1000)
  oidc = { clientId: created.client.clientId, clientSecret: created.clientSecret, grantId: `grant${crypto.randomUUID().replaceAll('-', '')}`, accessTokenId: `at${crypto.randomUUID().replaceAll('-', '')}` }
  await withDatabase(async (db) => {
    const user = await db.selectFrom('users').select('public_id').where('email', '=', owner.email).executeTakeFirstOrThrow()
    publicId = String(user.public_id)
    const common = { accountId: publicId, clientId: oidc.clientId, iat: nowS, exp: nowS + 3600 }
    await db
      .insertInto('oidc_payloads')
      .values([
        { model: 'Grant', id: oidc.grantId, grant_id: oidc.grantId, account_id: publicId, payload: JSON.stringify({ ...common, kind: 'Grant', jti: oidc.grantId, openid: { scope: 'openid email' } }), user_code: null, uid: null, expires_at: new Date(Date.now() + 3600_000) },
        { model: 'AccessToken', id: oidc.accessTokenId, grant_id: oidc.grantId, account_id: publicId, payload: JSON.stringify({ ...common, kind: 'AccessToken', jti: oidc.accessTokenId, grantId: oidc.grantId, scope: 'openid email' }), user_code: null, uid: null, expires_at: new Date(Date.now() + 3600_000) },
      ])
      .execute()
  })
}, START_TIMEOUT_MS)

afterAll(async () => {
  await stage?.stop()
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('GET /auth/export', () => {
  let res: Response
  let text: string
  let doc: Json

  beforeAll(async () => {
    res = await exportAs(owner)
    text = await res.text()
    doc = JSON.parse(text) as Json
  }, START_TIMEOUT_MS)

  it('answers the document as a JSON attachment named by the date, never stored by a cache', () => {
    expect(res.status, text).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="account-export-${String(doc.exportedAt).slice(0, 10)}.json"`)
    expect(doc.version).toBe(1)
  })

  it('holds every part of the account: profile, sessions, events, tokens, factors, providers, organizations, connected apps', () => {
    // externalId: an account made here has none (an imported one: tests/iam/admin-import.test.ts)
    // locale and timeZone: null until the owner chooses them (POST /auth/profile) or, for the zone, a browser names one
    expect(doc.profile).toEqual({ id: publicId, email: owner.email, name: 'Test User', emailVerified: true, hasPassword: true, createdAt: expect.any(String), externalId: null, locale: null, timeZone: null })
    const sessions = doc.sessions as Json[]
    expect(sessions).toHaveLength(2)
    expect(sessions.filter((s) => s.current)).toHaveLength(1)
    expect(sessions.find((s) => s.current)).toMatchObject({ ipAddress: owner.ip, userAgent: owner.ua })
    expect(sessions.find((s) => !s.current)).toMatchObject({ ipAddress: other.ip, userAgent: other.ua, browser: 'Firefox' })
    for (const s of sessions) expect(Object.keys(s).sort()).toEqual(['browser', 'country', 'createdAt', 'current', 'ipAddress', 'lastSeenAt', 'os', 'userAgent'])

    const types = (doc.securityEvents as Json[]).map((e) => e.type)
    expect(types).toEqual(expect.arrayContaining(['signed_up', 'email_verified', 'login_succeeded', 'second_factor_added', 'api_token_created', 'org_created', 'password_reset_requested']))
    expect(doc.securityEventsComplete).toBe(true)

    expect(doc.apiTokens).toEqual([
      { name: 'deploy bot', publicIdentifier: token.rawPublicId, privilege: 'restricted', valid: true, ipRestrictions: ['198.51.100.7'], createdAt: expect.any(String), expiresAt: token.expiresAt, lastUsedAt: null, usageCount: 0 },
    ])
    const factors = doc.secondFactors as Json
    expect(factors.totp).toMatchObject({ enabled: true, enabledAt: expect.any(String) })
    expect(factors.recoveryCodesRemaining).toBe(totp.recoveryCodes.length)
    expect(factors.passkeys).toEqual([{ name: 'Work laptop', createdAt: expect.any(String), lastUsedAt: null, backedUp: expect.any(Boolean) }])
    expect(doc.linkedProviders).toEqual([])
    expect(doc.organizations).toEqual([{ id: expect.any(String), slug: expect.stringMatching(/^export-/), name: 'Export Works', role: 'owner', since: expect.any(String) }])
    expect(doc.connectedApps).toEqual([{ clientId: oidc.clientId, name: 'Export Wiki', metadataDocumentHost: null, scopes: ['openid', 'email'], since: expect.any(String) }])
  })

  it('carries no secret: not as the person holds it, not as the database stores it', async () => {
    const held: Record<string, string> = {
      password: owner.password,
      'access token': owner.accessToken,
      'refresh token': owner.refreshToken,
      "other session's refresh token": other.refreshToken,
      "other session's access token": other.accessToken,
      'TOTP secret': totp.secret,
      'API token': token.rawApiKey,
      'reset link token': resetQuery.get('token')!,
      'reset link random': resetQuery.get('random')!,
      'OpenID client secret': oidc.clientSecret,
      'OpenID grant id': oidc.grantId,
      'OpenID access token': oidc.accessTokenId,
      'argon2 hash prefix': '$argon2',
    }
    totp.recoveryCodes.forEach((code, i) => {
      held[`recovery code ${i}`] = code
      held[`recovery code ${i} without separators`] = code.replace(/[^A-Za-z0-9]/g, '')
    })
    const stored = await withDatabase(async (db) => {
      const user = await db.selectFrom('users').select(['id', 'password_hash']).where('email', '=', owner.email).executeTakeFirstOrThrow()
      const families = await db.selectFrom('session_families').select('id').where('user_id', '=', user.id).execute()
      const refresh = await db.selectFrom('refresh_tokens').select('token_hash').where('family_id', 'in', families.map((f) => f.id)).execute()
      const factor = await db.selectFrom('totp_factors').select('secret_sealed').where('user_id', '=', user.id).executeTakeFirstOrThrow()
      const codes = await db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', user.id).execute()
      const tokens = await db.selectFrom('api_tokens').select('hashed_token').where('user_id', '=', user.id).execute()
      const keys = await db.selectFrom('passkeys').select(['credential_id', 'public_key']).where('user_id', '=', user.id).execute()
      const links = await db.selectFrom('magic_links').select(['jti', 'random_hash']).where('user_id', '=', user.id).execute()
      return {
        'password hash': [user.password_hash!],
        'session ids': families.map((f) => f.id),
        'refresh token hashes': refresh.map((r) => r.token_hash),
        'sealed TOTP secret': [factor.secret_sealed],
        'recovery code hashes': codes.map((c) => c.code_hash),
        'API token hashes': tokens.map((t) => t.hashed_token),
        'passkey credential ids': keys.map((k) => k.credential_id),
        'passkey public keys': keys.flatMap((k) => [Buffer.from(k.public_key).toString('base64'), Buffer.from(k.public_key).toString('base64url'), Buffer.from(k.public_key).toString('hex')]),
        'link ids and hashes': links.flatMap((l) => [l.jti, l.random_hash]),
      }
    })
    // each kind was found, so a search for it can fail
    expect(stored['session ids']).toHaveLength(2)
    expect(stored['recovery code hashes'].length).toBeGreaterThan(0)
    expect(stored['link ids and hashes'].length).toBeGreaterThan(0)
    for (const [what, values] of Object.entries(stored)) {
      expect(values.length, what).toBeGreaterThan(0)
      values.forEach((value, i) => (held[`${what} ${i}`] = value))
    }
    for (const [what, value] of Object.entries(held)) {
      expect(value.length, what).toBeGreaterThanOrEqual(7)
      expect(text.includes(value), `${what} appears in the export`).toBe(false)
    }
  })
})

describe('who may export', () => {
  it('refuses a request without a session (401), and a session that signed out (401)', async () => {
    const server = await stage.server()
    const anonymous = await call(server, 'GET', '/auth/export', { client: owner })
    expect(anonymous.status).toBe(401)
    const logout = await call(server, 'POST', '/auth/logout', { client: other, cookies: { session: other.refreshToken }, bearer: other.accessToken })
    expect(logout.status, await logout.clone().text()).toBe(200)
    const ended = await exportAs(other)
    expect(ended.status, await ended.clone().text()).toBe(401)
  })

  it('refuses a sign-in proof older than the window with 403 reauthenticate, and exports again once re-authenticated', async () => {
    const server = await stage.server()
    await advanceClock(server, REAUTH_WINDOW_MS + 60_000)
    owner = await applyRefresh(owner, await refresh(server, owner))
    const stale = await exportAs(owner)
    const body = (await stale.json()) as Json
    expect(stale.status, JSON.stringify(body)).toBe(403)
    expect(body).toMatchObject({ ok: false, error: 'Re-authentication required', reauthenticate: true })
    expect(stale.headers.get('content-disposition')).toBeNull()
    const proven = await authed(server, owner, 'POST', '/auth/reauthenticate', { password: owner.password })
    expect(proven.status, await proven.clone().text()).toBe(200)
    expect((await exportAs(owner)).status).toBe(200)
  })

  it(`counts exports per user (rate_limiters.export): ${EXPORT_POINTS} here, then 429 with Retry-After`, async () => {
    const server = await stage.server()
    const fresh = await signupUser(server, { client: { ip: '203.0.113.64' } })
    for (let n = 1; n <= EXPORT_POINTS; n++) expect((await exportAs(fresh)).status, `export ${n}`).toBe(200)
    const limited = await exportAs(fresh)
    expect(limited.status, await limited.clone().text()).toBe(429)
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
    // per user: the owner's budget is its own
    expect((await exportAs(owner)).status).toBe(200)
  })
})
