import { describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, ownSecurityEvents, setCookieValue, uniqueEmail } from '../helpers/accounts'
import type { RouteContract } from '../../iam/contract/define'
import { ROUTES, type RouteId } from '../../iam/contract/routes'
import type { Json } from '../helpers/iam-server'
import { signupConfirmed } from '../helpers/confirm-email'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { authed, enrolTotp, passwordStep, secondFactor, sessionOf, totpCode } from './second-factor-http'

// the run's shared IAM: its config names the TOTP issuer 'Acme Test' and opens the login limits
const iam = sharedIam()
const mails = sharedSmtp()

describe('POST /auth/totp/setup', () => {
  it('answers a base32 secret and its otpauth URL (SHA-1, 6 digits, 30 s, the configured issuer, the account as label)', async () => {
    const user = await signupConfirmed(iam, mails)
    const res = await authed(iam, user, 'POST', '/auth/totp/setup')
    expect(res.status).toBe(200)
    const { secret, otpauthUrl } = ((await res.json()) as Json).data as { secret: string; otpauthUrl: string }
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    const url = new URL(otpauthUrl)
    expect(url.protocol).toBe('otpauth:')
    expect(url.host).toBe('totp')
    expect(decodeURIComponent(url.pathname)).toBe(`/Acme Test:${user.email}`)
    expect(Object.fromEntries(url.searchParams)).toEqual({ issuer: 'Acme Test', secret, algorithm: 'SHA1', digits: '6', period: '30' })
  })

  it('replaces a pending setup: the first secret no longer enables', async () => {
    const user = await signupConfirmed(iam, mails)
    const first = (((await (await authed(iam, user, 'POST', '/auth/totp/setup')).json()) as Json).data as { secret: string }).secret
    const second = (((await (await authed(iam, user, 'POST', '/auth/totp/setup')).json()) as Json).data as { secret: string }).secret
    expect(second).not.toBe(first)
    expect((await authed(iam, user, 'POST', '/auth/totp/enable', { code: totpCode(first) })).status).toBe(400)
    expect((await authed(iam, user, 'POST', '/auth/totp/enable', { code: totpCode(second) })).status).toBe(200)
  })

  it('is refused with 409 once TOTP is enabled, and without a session with 401', async () => {
    const user = await signupConfirmed(iam, mails)
    await enrolTotp(iam, user)
    const res = await authed(iam, user, 'POST', '/auth/totp/setup')
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Two-step sign-in is already on', code: 'totp_already_enabled' })
    expect((await call(iam, 'POST', '/auth/totp/setup', { client: user })).status).toBe(401)
  })
})

describe('POST /auth/totp/enable', () => {
  it('answers 10 distinct high-entropy recovery codes once and turns TOTP on', async () => {
    const user = await signupConfirmed(iam, mails)
    const { recoveryCodes } = await enrolTotp(iam, user)
    expect(recoveryCodes).toHaveLength(10)
    expect(new Set(recoveryCodes).size).toBe(10)
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/)
    const status = await authed(iam, user, 'GET', '/auth/totp')
    expect(await status.json()).toEqual({ ok: true, date: expect.any(String), data: { enabled: true, recoveryCodesLeft: 10 } })
  })

  it('refuses a wrong or malformed code with 400 and a missing setup with 409', async () => {
    const user = await signupConfirmed(iam, mails)
    expect((await authed(iam, user, 'POST', '/auth/totp/enable', { code: '123456' })).status).toBe(409)
    const setup = (((await (await authed(iam, user, 'POST', '/auth/totp/setup')).json()) as Json).data as { secret: string }).secret
    const wrong = String((Number(totpCode(setup)) + 1) % 1_000_000).padStart(6, '0')
    const res = await authed(iam, user, 'POST', '/auth/totp/enable', { code: wrong })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid code', code: 'code_invalid', fields: { code: 'Invalid code' } })
    for (const code of ['12345', '1234567', 'abcdef', 123456]) {
      expect((await authed(iam, user, 'POST', '/auth/totp/enable', { code })).status).toBe(400)
    }
    const status = await authed(iam, user, 'GET', '/auth/totp')
    expect(((await status.json()) as Json).data).toEqual({ enabled: false, recoveryCodesLeft: 0 })
  })
})

describe('sign-in with TOTP enabled', () => {
  it('answers the password step with a challenge and no tokens or cookie, and the second factor with a working session', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const device = await newDevice(iam)
    const res = await call(iam, 'POST', '/login', { client: device, body: { email: user.email, password: user.password } })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(body).toEqual({ ok: true, date: expect.any(String), secondFactor: { challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), methods: ['totp', 'recovery_code'] } })
    expect(setCookieValue(res, 'session')).toBeUndefined()
    const challenge = (body.secondFactor as { challenge: string }).challenge
    const done = await secondFactor(iam, device, challenge, totpCode(secret, 1))
    expect(done.status).toBe(200)
    const session = await sessionOf(done, user, device)
    expect((await authedGet(iam, session)).status).toBe(200)
  })

  it('signs in with a recovery code (any case, with or without dashes) and counts it spent', async () => {
    const user = await signupConfirmed(iam, mails)
    const { recoveryCodes } = await enrolTotp(iam, user)
    const device = await newDevice(iam)
    const code = recoveryCodes[3]!.toLowerCase().replaceAll('-', '')
    const session = await sessionOf(await secondFactor(iam, device, await passwordStep(iam, user, device), code), user, device)
    const status = await authed(iam, session, 'GET', '/auth/totp')
    expect(((await status.json()) as Json).data).toEqual({ enabled: true, recoveryCodesLeft: 9 })
    const again = await secondFactor(iam, device, await passwordStep(iam, user, device), recoveryCodes[3]!)
    expect(again.status).toBe(401)
    expect(await again.json()).toEqual({ ok: false, date: expect.any(String), error: 'Invalid code', code: 'code_invalid' })
  })

  it('asks for the second factor after a provider sign-in too, and opens the session only after it', async () => {
    const device = await newDevice(iam)
    const profile = { sub: `sub-${Date.now()}`, email: uniqueEmail('oidc'), email_verified: true, name: 'Ada' }
    const first = await call(iam, 'POST', '/auth/OAuth/demo', { client: device, body: profile })
    expect(first.status).toBe(201)
    const user = { ...device, email: profile.email, password: '', accessToken: ((await first.json()) as Json).accessToken as string, refreshToken: setCookieValue(first, 'session')! }
    const { secret } = await enrolTotp(iam, user)
    const again = await call(iam, 'POST', '/auth/OAuth/demo', { client: device, body: profile })
    expect(again.status).toBe(200)
    const body = (await again.json()) as Json
    expect(body).toEqual({ ok: true, date: expect.any(String), secondFactor: { challenge: expect.any(String), methods: ['totp', 'recovery_code'] } })
    expect(setCookieValue(again, 'session')).toBeUndefined()
    const done = await secondFactor(iam, device, (body.secondFactor as { challenge: string }).challenge, totpCode(secret, 1))
    expect((await authedGet(iam, await sessionOf(done, user, device))).status).toBe(200)
  })

  it('leaves accounts without a second factor signing in with the password alone', async () => {
    const user = await signupConfirmed(iam, mails)
    const res = await call(iam, 'POST', '/login', { client: await newDevice(iam), body: { email: user.email, password: user.password } })
    expect(res.status).toBe(200)
    expect(((await res.json()) as Json).accessToken).toEqual(expect.any(String))
  })
})

describe('POST /auth/totp/disable', () => {
  it('turns TOTP off with a TOTP code: the password alone signs in again and a new setup is possible', async () => {
    const user = await signupConfirmed(iam, mails)
    const { secret } = await enrolTotp(iam, user)
    const res = await authed(iam, user, 'POST', '/auth/totp/disable', { code: totpCode(secret, 1) })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, date: expect.any(String), data: { enabled: false } })
    const login = await call(iam, 'POST', '/login', { client: await newDevice(iam), body: { email: user.email, password: user.password } })
    expect(((await login.json()) as Json).accessToken).toEqual(expect.any(String))
    expect((await authed(iam, user, 'POST', '/auth/totp/setup')).status).toBe(200)
  })

  it('turns TOTP off with a recovery code and removes the other recovery codes', async () => {
    const user = await signupConfirmed(iam, mails)
    const { recoveryCodes } = await enrolTotp(iam, user)
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: recoveryCodes[0] })).status).toBe(200)
    const status = await authed(iam, user, 'GET', '/auth/totp')
    expect(((await status.json()) as Json).data).toEqual({ enabled: false, recoveryCodesLeft: 0 })
  })

  it('refuses a wrong code with 400 (TOTP stays on) and answers 409 when TOTP is off', async () => {
    const user = await signupConfirmed(iam, mails)
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: '123456' })).status).toBe(409)
    await enrolTotp(iam, user)
    const res = await authed(iam, user, 'POST', '/auth/totp/disable', { code: 'AAAA-BBBB-CCCC-DDDD' })
    expect(res.status).toBe(400)
    expect(((await (await authed(iam, user, 'GET', '/auth/totp')).json()) as Json).data).toEqual({ enabled: true, recoveryCodesLeft: 10 })
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: 'abc!def' })).status).toBe(400)
  })
})

describe('the route table', () => {
  const documented = async (id: RouteId, res: Response) => {
    const body: unknown = await res.json()
    const schema = (ROUTES[id] as RouteContract).responses[res.status]?.body
    expect(schema, `${id} does not document ${res.status}`).toBeDefined()
    expect(schema!.safeParse(body).success, `${id} ${res.status}: ${JSON.stringify(body)}`).toBe(true)
    return body as Json
  }

  it('documents what the second-factor routes and the login of an account with TOTP answer', async () => {
    const user = await signupConfirmed(iam, mails)
    const setup = await documented('totpSetup', await authed(iam, user, 'POST', '/auth/totp/setup'))
    const { secret } = setup.data as { secret: string }
    await documented('totpEnable', await authed(iam, user, 'POST', '/auth/totp/enable', { code: '000000' === totpCode(secret) ? '111111' : '000000' }))
    const enabled = await documented('totpEnable', await authed(iam, user, 'POST', '/auth/totp/enable', { code: totpCode(secret) }))
    const recoveryCodes = (enabled.data as { recoveryCodes: string[] }).recoveryCodes
    await documented('totpStatus', await authed(iam, user, 'GET', '/auth/totp'))
    await documented('totpSetup', await authed(iam, user, 'POST', '/auth/totp/setup'))
    const device = await newDevice(iam)
    const login = await documented('login', await call(iam, 'POST', '/login', { client: device, body: { email: user.email, password: user.password } }))
    const challenge = (login.secondFactor as { challenge: string }).challenge
    await documented('secondFactor', await secondFactor(iam, device, challenge, 'ZZZZ-ZZZZ-ZZZZ-ZZZZ'))
    await documented('secondFactor', await secondFactor(iam, device, 'A'.repeat(43), recoveryCodes[0]!))
    await documented('secondFactor', await secondFactor(iam, device, challenge, recoveryCodes[0]!))
    await documented('totpDisable', await authed(iam, user, 'POST', '/auth/totp/disable', { code: recoveryCodes[1] }))
    await documented('totpDisable', await authed(iam, user, 'POST', '/auth/totp/disable', { code: recoveryCodes[2] }))
  })
})

describe('audit', () => {
  it('records second factor added, failed, recovery code used, passed and removed, never a code', async () => {
    const user = await signupConfirmed(iam, mails, { client: { ip: '198.51.100.77' } })
    const { secret, recoveryCodes } = await enrolTotp(iam, user)
    const device = await newDevice(iam, { ip: '198.51.100.77' })
    expect((await secondFactor(iam, device, await passwordStep(iam, user, device), 'ZZZZ-ZZZZ-ZZZZ-ZZZZ')).status).toBe(401)
    await sessionOf(await secondFactor(iam, device, await passwordStep(iam, user, device), recoveryCodes[0]!), user, device)
    expect((await authed(iam, user, 'POST', '/auth/totp/disable', { code: totpCode(secret, 1) })).status).toBe(200)
    const events = (await ownSecurityEvents(iam, user)).filter((e) => e.type.startsWith('second_factor') || e.type.startsWith('recovery_code'))
    expect(events.map((e) => e.type)).toEqual(['second_factor_added', 'second_factor_failed', 'recovery_code_used', 'second_factor_passed', 'second_factor_removed'])
    expect(events.every((e) => e.ipAddress === '198.51.100.77')).toBe(true)
    expect(events[2]!.details).toEqual({ purpose: 'sign_in', remaining: 9 })
    const text = JSON.stringify(events)
    for (const secretValue of [secret, recoveryCodes[0]!, recoveryCodes[0]!.replaceAll('-', '')]) expect(text).not.toContain(secretValue)
  })
})
