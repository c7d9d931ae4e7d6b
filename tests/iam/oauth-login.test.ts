import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authedGet, call, newDevice, PROXY_CONFIG, setCookieValue, signupUser, uniqueEmail, type Client, type Session } from '../helpers/accounts'
import { mailTo } from '../helpers/confirm-email'
import { startIam, type IamServer, type Json } from '../helpers/iam-server'
import { linkQueryOf } from '../helpers/smtp'
import { expectDocumented } from './documented'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      providers: [{ name: 'demo', useStandardProfile: true }, { name: 'gh', fields: { id: 'id', email: 'mail', name: 'login' } }],
      rate_limiters: { oauth: { points: 8, duration: 600, blockDuration: 600 } },
      anomalies: { velocity: { count: 50 } },
      jwt: { refresh_tokens: { maxAllowedSessionsPerUser: 50 } },
    },
  })
}, 240_000)
afterAll(() => iam?.stop())

let ipCounter = 0
const freshDevice = () => newDevice(iam, { ip: `198.51.100.${++ipCounter}` })
const post = (provider: string, body: unknown, client: Client) => call(iam, 'POST', `/auth/OAuth/${provider}`, { client, body })

async function oauthSession(provider: string, profile: Json, client: Client): Promise<{ res: Response; session?: Session }> {
  const res = await post(provider, profile, client)
  if (res.status !== 201) return { res }
  const body = (await res.clone().json()) as Json
  return { res, session: { ...client, email: '', password: '', accessToken: body.accessToken as string, refreshToken: setCookieValue(res, 'session')! } }
}

async function userIdOf(s: Session): Promise<number> {
  const res = await authedGet(iam, s)
  return ((await res.json()) as Json).userId as number
}

async function emailVerifiedOf(s: Session): Promise<unknown> {
  const res = await authedGet(iam, s, '/secret/accesstoken/metadata')
  return ((await res.json()) as Json).emailVerified
}

describe('GET /auth/sign-in-methods', () => {
  it('tells an account made through a provider that it has no password, and names the provider', async () => {
    const { session } = await oauthSession('demo', { sub: `m-${Date.now()}`, email: uniqueEmail('methods'), email_verified: true }, await freshDevice())
    const res = await authedGet(iam, session!, '/auth/sign-in-methods')
    expect(res.status).toBe(200)
    const body = await res.json()
    expectDocumented('signInMethods', 200, body)
    expect(body).toMatchObject({ ok: true, data: { password: false, totp: false, passkeys: 0, providers: ['demo'] } })
  })

  it('tells a signed-up account that it has a password and no provider', async () => {
    const user = await signupUser(iam, { client: await freshDevice() })
    const res = await authedGet(iam, user, '/auth/sign-in-methods')
    expect(await res.json()).toMatchObject({ ok: true, data: { password: true, totp: false, passkeys: 0, providers: [] } })
  })

  it('answers 401 without a session', async () => {
    expect((await call(iam, 'GET', '/auth/sign-in-methods', { client: await freshDevice() })).status).toBe(401)
  })
})

describe('POST /auth/OAuth/:providerName', () => {
  it('creates the user from a standard profile (201) and logs the same identity into the same user again', async () => {
    const device = await freshDevice()
    const profile = { sub: `sub-${Date.now()}`, email: uniqueEmail('oidc'), email_verified: true, name: 'Ada', extra: 'dropped' }
    const first = await oauthSession('demo', profile, device)
    expect(first.res.status).toBe(201)
    expect(await first.res.clone().json()).toEqual({ ok: true, date: expect.any(String), accessToken: expect.any(String), accessIat: expect.any(Number), expiresInMs: 900_000 })
    const second = await oauthSession('demo', profile, device)
    expect(second.res.status).toBe(201)
    expect(await userIdOf(second.session!)).toBe(await userIdOf(first.session!))
  })

  it('maps other profile shapes through the provider fields', async () => {
    const device = await freshDevice()
    const res = await post('gh', { id: 12345, mail: uniqueEmail('gh'), login: 'octo' }, device)
    expect(res.status).toBe(201)
  })

  it('answers 404 for a provider that is not registered', async () => {
    const device = await freshDevice()
    const res = await post('nope', { sub: '1', email: uniqueEmail() }, device)
    expect(res.status).toBe(404)
  })

  it('answers 400 for a profile without an email or without an id, and without the canary cookie', async () => {
    const device = await freshDevice()
    const noEmail = await post('demo', { sub: 'x1' }, device)
    expect(noEmail.status).toBe(400)
    expect(await noEmail.json()).toMatchObject({ ok: false, error: 'Invalid provider profile', fields: { email: expect.any(String) } })
    expect((await post('demo', { email: uniqueEmail() }, device)).status).toBe(400)
    expect((await post('demo', { sub: 'x2', email: uniqueEmail() }, { ...device, canary: undefined })).status).toBe(400)
  })

  it('answers 409 for an address owned by a password account, even when the provider verified it', async () => {
    const owner = await signupUser(iam, { client: { ip: '203.0.113.90' } })
    const device = await freshDevice()
    const res = await post('demo', { sub: `s-${Date.now()}`, email: owner.email, email_verified: true }, device)
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Email already registered', code: 'email_taken' })
  })

  it('never attaches an unverified provider address to an existing account', async () => {
    const device = await freshDevice()
    const email = uniqueEmail('victim')
    expect((await post('demo', { sub: `v-${Date.now()}`, email, email_verified: true }, device)).status).toBe(201)
    const attacker = await freshDevice()
    const res = await post('gh', { id: 999001, mail: email }, attacker)
    expect(res.status).toBe(409)
  })

  it('stores an address the provider does not mark verified as unverified (email_verified missing, false or "false")', async () => {
    for (const claim of [{}, { email_verified: false }, { email_verified: 'false' }]) {
      const { res, session } = await oauthSession('demo', { sub: `u-${Date.now()}-${++ipCounter}`, email: uniqueEmail('unverified'), ...claim }, await freshDevice())
      expect(res.status).toBe(201)
      expect(await emailVerifiedOf(session!)).toBe(false)
    }
  })

  it('makes a new account verified when the provider verified the address', async () => {
    const { session } = await oauthSession('demo', { sub: `ver-${Date.now()}`, email: uniqueEmail('verified'), email_verified: true }, await freshDevice())
    expect(await emailVerifiedOf(session!)).toBe(true)
  })

  it('never links a standard profile without email_verified to an existing verified account', async () => {
    const email = uniqueEmail('owner')
    expect((await post('demo', { sub: `o-${Date.now()}`, email, email_verified: true }, await freshDevice())).status).toBe(201)
    const res = await post('demo', { sub: `intruder-${Date.now()}`, email }, await freshDevice())
    expect(res.status).toBe(409)
  })

  it('links a second provider to an OAuth account when both sides verified the address', async () => {
    const device = await freshDevice()
    const email = uniqueEmail('linked')
    const a = await oauthSession('demo', { sub: `l-${Date.now()}`, email, email_verified: true }, device)
    const b = await oauthSession('gh', { id: `gh-${Date.now()}`, mail: email, email_verified: true }, device)
    expect(b.res.status).toBe(201)
    expect(await userIdOf(b.session!)).toBe(await userIdOf(a.session!))
  })

  it('refuses the provider sign-in of an account whose deletion is confirmed like a suspended one (403 banned), without a session', async () => {
    const device = await freshDevice()
    const profile = { sub: `del-${Date.now()}`, email: uniqueEmail('deleting'), email_verified: true }
    const { session } = await oauthSession('demo', profile, device)
    const asked = await call(iam, 'POST', '/auth/delete-account', { client: session!, cookies: { session: session!.refreshToken }, bearer: session!.accessToken })
    expect(asked.status, await asked.clone().text()).toBe(202)
    const confirm = linkQueryOf(await mailTo({ dataDir: iam.dataDir }, profile.email, (m) => (m.text ?? '').includes('reason=DELETE_ACCOUNT&')))
    expect((await call(iam, 'POST', `/auth/delete-account/confirm${confirm}`, { client: device })).status).toBe(200)

    const res = await post('demo', profile, await freshDevice())
    expect(res.status).toBe(403)
    expect(setCookieValue(res, 'session') ?? '').toBe('')
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Account suspended', code: 'account_banned', banned: true })
  })

  it('answers 403 { banned: true } for HTML in a profile field and bans the device', async () => {
    const device = await freshDevice()
    const res = await post('demo', { sub: 'x3', email: uniqueEmail(), name: '<img src=x onerror=alert(1)>' }, device)
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
    expect((await call(iam, 'GET', '/check', { client: device })).status).toBe(403)
  })

  it('answers 429 once the OAuth limit of the IP is spent', async () => {
    const device = await freshDevice()
    let last: Response | undefined
    for (let i = 0; i < 9; i++) last = await post('demo', { sub: `r-${i}-${Date.now()}`, email: uniqueEmail('rl') }, device)
    expect(last!.status).toBe(429)
    expect(await last!.json()).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.any(Number) })
  })
})
