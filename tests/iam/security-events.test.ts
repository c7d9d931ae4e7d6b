/**
 * The audit log and its view: security_events records the sensitive events of an
 * account, and GET /auth/security-events lists the user's own, newest first, in pages.
 */
import { describe, expect, it } from 'vitest'
import { applyRefresh, authedGet, call, loginUser, newDevice, refresh, setCookieValue, signupUser, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { expectDocumented } from './documented'
import { codeOf, linkQueryOf, recipients } from '../helpers/smtp'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { manage, newToken, refOf } from './api-tokens-http'

// the run's shared IAM (its config lets one user hold the 20-odd sessions these tests sign in)
const iam = sharedIam()
const smtp = sharedSmtp()

let ipSeq = 0
const freshUser = () => signupUser(iam, { client: { ip: `192.0.2.${++ipSeq}` } })

type EventPage = { events: Json[]; nextBefore?: string }

async function page(s: Session, query = ''): Promise<EventPage> {
  const res = await authedGet(iam, s, `/auth/security-events${query}`)
  const body = (await res.json()) as { data: EventPage }
  if (res.status !== 200) throw new Error(`security-events answered ${res.status}: ${JSON.stringify(body)}`)
  expectDocumented('listSecurityEvents', 200, body)
  return body.data
}

/** The user's event types, newest first, once `want` has been recorded (failed logins are written off the request path). */
async function typesOnceRecorded(s: Session, want: string): Promise<string[]> {
  for (let i = 0; i < 50; i++) {
    const types = (await page(s, '?limit=100')).events.map((e) => e.type as string)
    if (types.includes(want)) return types
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`${want} was never recorded`)
}

describe('GET /auth/security-events', () => {
  it('lists sign-ins, ok and failed, newest first, with address and browser, and never the tried password', async () => {
    const user = await freshUser()
    const tried = 'a guess that is wrong 123'
    expect((await call(iam, 'POST', '/login', { client: user, body: { email: user.email, password: tried } })).status).toBe(401)
    await typesOnceRecorded(user, 'login_failed')
    await loginUser(iam, user.email, user.password, user)
    const res = await authedGet(iam, user, '/auth/security-events')
    const text = await res.text()
    expect(text).not.toContain(tried)
    expect(text).not.toContain(user.password)
    const { events, nextBefore } = (JSON.parse(text) as { data: EventPage }).data
    expect(nextBefore).toBeUndefined()
    expect(events.map((e) => e.type)).toEqual(['login_succeeded', 'login_failed', 'signed_up'])
    expect(events[0]).toEqual({
      id: expect.any(Number),
      type: 'login_succeeded',
      createdAt: expect.any(String),
      ipAddress: user.ip,
      browser: 'Chrome',
      details: { method: 'password', sessionId: expect.any(String) },
    })
    expect(events[1]).toMatchObject({ details: { method: 'password', reason: 'invalid_credentials' } })
    expect(Date.parse(events[0]!.createdAt as string)).toBeGreaterThanOrEqual(Date.parse(events[1]!.createdAt as string))
  })

  it('records session revocations, a password change and API tokens created, rotated and revoked', async () => {
    const user = await freshUser()
    await loginUser(iam, user.email, user.password, user)
    await loginUser(iam, user.email, user.password, user)
    const sessions = (await (await authedGet(iam, user, '/auth/sessions')).json()) as { data: { sessions: Json[] } }
    const otherId = sessions.data.sessions.find((s) => !s.current && s.id)!.id
    expect((await call(iam, 'POST', '/auth/sessions/revoke', { client: user, cookies: { session: user.refreshToken }, bearer: user.accessToken, body: { id: otherId } })).status).toBe(200)
    const token = await newToken(iam, user, { name: 'ci-key' })
    expect((await manage(iam, user, 'rotate', refOf(token))).status).toBe(200)
    const listed = (await (await manage(iam, user, 'list-metadata')).json()) as { data: { tokenList: Array<{ id: number; public_identifier: string; name: string }> } }
    const rotated = listed.data.tokenList[0]!
    expect((await manage(iam, user, 'revoke', { tokenId: rotated.id, publicIdentifier: rotated.public_identifier, name: rotated.name })).status).toBe(200)
    const password = 'the audit log passphrase'
    const changed = await call(iam, 'POST', '/auth/change-password', {
      client: user,
      cookies: { session: user.refreshToken },
      bearer: user.accessToken,
      body: { currentPassword: user.password, password, confirmedPassword: password },
    })
    expect(changed.status).toBe(200)
    const renewed = { ...user, accessToken: ((await changed.json()) as Json).accessToken as string, refreshToken: setCookieValue(changed, 'session')! }
    const { events } = await page(renewed, '?limit=100')
    expect(events.map((e) => e.type).slice(0, 5)).toEqual(['password_changed', 'api_token_revoked', 'api_token_rotated', 'api_token_created', 'session_revoked'])
    expect(events[0]!.details).toEqual({ revokedSessions: 1 })
    expect(events[3]!.details).toEqual({ name: 'ci-key' })
    expect(events[4]!.details).toEqual({ sessionId: otherId })
    expect(JSON.stringify(events)).not.toContain(token.rawApiKey)
  })

  it('records the sign-up as the account\'s first event, with its device\'s address and the session it opened', async () => {
    const user = await freshUser()
    const { events } = await page(user)
    expect(events).toEqual([
      { id: expect.any(Number), type: 'signed_up', createdAt: expect.any(String), ipAddress: user.ip, browser: 'Chrome', details: { method: 'password', sessionId: expect.any(String) } },
    ])
  })

  it('records a session the anomaly checks ended, with the reason: its refresh token came back from another device', async () => {
    const user = await freshUser()
    const next = await applyRefresh(user, await refresh(iam, user))
    const thief = await newDevice(iam, { ip: '198.51.100.77' })
    expect((await refresh(iam, user, { canary: thief.canary, ip: thief.ip })).status).toBe(401)
    // the owner signs in again and reads why the old session ended
    const again = await loginUser(iam, user.email, user.password, user)
    const revoked = (await page(again)).events.filter((e) => e.type === 'session_revoked_anomaly')
    expect(revoked).toEqual([
      {
        id: expect.any(Number),
        type: 'session_revoked_anomaly',
        createdAt: expect.any(String),
        ipAddress: thief.ip,
        browser: 'Chrome',
        details: { reason: 'refresh_token_reused', sessionId: expect.any(String) },
      },
    ])
    // the owner's own session, now ended, says why
    const owner = await refresh(iam, next)
    expect(owner.status).toBe(401)
    expect(await owner.json()).toMatchObject({ reason: 'SESSION_REVOKED', revokedFor: 'refresh_token_reused' })
  })

  it('records a failed adaptive-MFA code for the account', async () => {
    const user = await freshUser()
    const other = await newDevice(iam, { ip: user.ip })
    expect((await authedGet(iam, user, '/secret/data', { canary: other.canary })).status).toBe(202)
    const mail = await smtp.waitForMail((m) => recipients(m).includes(user.email) && (m.text ?? '').includes('reason=MAGIC_LINK_MFA_CHECKS'))
    const wrong = codeOf(mail) === '0000000' ? '1111111' : '0000000'
    const res = await call(iam, 'POST', `/auth/verify-mfa${linkQueryOf(mail)}`, { client: other, body: { code: wrong }, cookies: { session: user.refreshToken } })
    expect(res.status).toBe(401)
    const fresh = await loginUser(iam, user.email, user.password, user)
    const types = (await page(fresh, '?limit=100')).events.map((e) => e.type)
    expect(types).toContain('mfa_failed')
    expect(types).toContain('mfa_sent')
  })

  it('records the ban of a device that sent markup in a signed-in request, in that user’s log', async () => {
    const user = await freshUser()
    const res = await call(iam, 'POST', '/auth/sessions/revoke', {
      client: user,
      cookies: { session: user.refreshToken },
      bearer: user.accessToken,
      body: { id: '<script>alert(1)</script>' },
    })
    expect(res.status).toBe(403)
    const elsewhere = await loginUser(iam, user.email, user.password, await newDevice(iam, { ip: user.ip }))
    const { events } = await page(elsewhere, '?limit=100')
    expect(events.find((e) => e.type === 'device_banned')).toMatchObject({ ipAddress: user.ip, details: { reason: 'xss' } })
  })

  it('pages through every event with limit and nextBefore, newest first, without repeats', async () => {
    const user = await freshUser()
    for (let i = 0; i < 4; i++) await loginUser(iam, user.email, user.password, user)
    const all = (await page(user, '?limit=100')).events
    // four sign-ins and the sign-up
    expect(all.length).toBe(5)
    const seen: Json[] = []
    let query = '?limit=3'
    for (;;) {
      const next = await page(user, query)
      seen.push(...next.events)
      if (!next.nextBefore) break
      expect(next.nextBefore).toMatch(/^\d+\.\d+$/)
      query = `?limit=3&before=${next.nextBefore}`
    }
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id))
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length)
  })

  it('answers 20 events by default', async () => {
    const user = await freshUser()
    for (let i = 0; i < 21; i++) await loginUser(iam, user.email, user.password, user)
    const first = await page(user)
    expect(first.events).toHaveLength(20)
    expect(first.nextBefore).toBeDefined()
    // the 21st sign-in and the sign-up
    expect((await page(user, `?before=${first.nextBefore}`)).events).toHaveLength(2)
  })

  it('answers 400 for a bad limit or before', async () => {
    const user = await freshUser()
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=-1', 'limit=1.5', 'limit=1&limit=2', 'before=abc', 'before=1.2.3', 'before=99999999999999999.1']) {
      const res = await authedGet(iam, user, `/auth/security-events?${query}`)
      expect(res.status, query).toBe(400)
      const body = (await res.json()) as Json
      expect(body).toMatchObject({ ok: false, error: 'Validation failed', fields: expect.any(Object) })
      expectDocumented('listSecurityEvents', 400, body)
    }
  })

  it('requires full authentication', async () => {
    const user = await freshUser()
    expect((await call(iam, 'GET', '/auth/security-events', { client: user, cookies: { session: user.refreshToken } })).status).toBe(401)
  })
})
