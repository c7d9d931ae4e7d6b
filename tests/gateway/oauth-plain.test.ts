/**
 * The plain OAuth 2.0 kind (gateway.md, User info (oauth) and Success step 1-2): Bearer userinfo,
 * email from emailCallBack or from a scan of the user object, 400 without one, and extra user
 * info merged with mode drop. The function callbacks come from the test-only Nitro plugin
 * (server/test-build/oauth-test-callbacks.ts, in the test build only; GATEWAY_TEST_OAUTH_CALLBACKS=1, refused in production).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { freePort, startFakeIam, type FakeIam } from '../helpers/fake-iam'
import { flushedLogs } from '../helpers/logs'
import { setupGateway } from '../helpers/nuxt-gateway'
import { startOAuth2Fake, type FakeProvider } from '../helpers/oauth2-fake'
import { createBrowser } from '../helpers/oidc-provider'

const SECRET = 'plain-secret-0123456789'
let iam: FakeIam
let fake: FakeProvider

const cookieHeader = (res: Response, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))

function expectFlowCookiesCleared(res: Response, provider: string) {
  for (const name of [`state${provider}`, `pkce_v${provider}`, `nonce${provider}`]) {
    expect(cookieHeader(res, name), name).toMatch(new RegExp(`^${name}=; Max-Age=0;`))
  }
}

async function login(provider: string): Promise<Response> {
  const browser = createBrowser()
  const start = await browser.request(`${base}/oauth/${provider}`)
  expect(start.status).toBe(302)
  const approved = await browser.request(start.headers.get('location') ?? '')
  return browser.request(approved.headers.get('location') ?? '')
}

const lastLogin = (provider: string) => iam.requests.filter((r) => r.path === `/auth/OAuth/${provider}`).at(-1)

const port = await freePort()
const base = `http://127.0.0.1:${port}`
let gatewayConfig: Record<string, unknown>

beforeAll(async () => {
  iam = await startFakeIam()
  fake = await startOAuth2Fake({ clients: { 'plain-client': SECRET } })
  const entry = (name: string, extra: Record<string, unknown> = {}) => ({
    kind: 'oauth',
    name,
    authorizationEndpoint: fake.endpoints.authorization,
    tokenEndpoint: fake.endpoints.token,
    userInfoEndpoint: fake.endpoints.userinfo,
    clientId: 'plain-client',
    clientSecret: SECRET,
    redirectUri: `${base}/oauth/callback/${name}`,
    defaultScopes: ['read:user', 'user:email'],
    redirectUrlOnSuccess: `${base}/account`,
    redirectUrlOnError: `${base}/auth/error`,
    ...extra,
  })
  gatewayConfig = {
    iam: { url: iam.url, hmac: iam.hmac },
    cookieSecret: 'plain-test-cookie-secret-0123456789-abcdefgh',
    OAuthProviders: [
      entry('fake-scan', { tokenAuthMethod: 'client_secret_post' }),
      entry('fake-email', { supportPKCE: true }),
      entry('fake-extra'),
      entry('fake-throw'),
    ],
  }
})

afterAll(async () => {
  await fake?.stop()
  await iam?.stop()
})
const gw = await setupGateway({ port, env: { NODE_ENV: 'development', GATEWAY_TEST_OAUTH_CALLBACKS: '1' }, config: () => gatewayConfig })

beforeEach(() => {
  fake.behaviour = {}
})

describe('plain OAuth 2.0 providers', () => {
  it('sends no nonce, exchanges the code with client_secret_post and fetches the profile with a Bearer token', async () => {
    const res = await login('fake-scan')
    expect(res.status).toBe(200)
    expectFlowCookiesCleared(res, 'fake-scan')
    const authorize = fake.requests.filter((r) => r.path === '/authorize').at(-1)!
    expect(authorize.query.has('nonce')).toBe(false)
    expect(authorize.query.has('code_challenge')).toBe(false)
    const token = fake.requests.filter((r) => r.path === '/token').at(-1)!
    expect(token.headers.authorization).toBeUndefined()
    expect(token.form.get('client_secret')).toBe(SECRET)
    const user = fake.requests.filter((r) => r.path === '/user').at(-1)!
    expect(user.headers.authorization).toBe(`Bearer ${fake.accessTokens.at(-1)}`)
    expect(lastLogin('fake-scan')?.body).toEqual({ id: 4242, login: 'octo', name: 'Octo Cat', email: 'octo@example.com' })
  })

  it('takes the email from emailCallBack when the profile has none', async () => {
    fake.behaviour = { userinfo: { id: 7, login: 'nomail', email: null } }
    const res = await login('fake-email')
    expect(res.status).toBe(200)
    expect(lastLogin('fake-email')?.body).toEqual({ id: 7, login: 'nomail', email: 'primary@example.com' })
    // the callback used the same access token against the provider's API
    expect(fake.requests.filter((r) => r.path === '/user/emails').at(-1)?.headers.authorization).toBe(`Bearer ${fake.accessTokens.at(-1)}`)
  })

  it('answers 400 when emailCallBack finds no email', async () => {
    fake.behaviour = { userinfo: { id: 8, login: 'nomail' }, emails: [] }
    const before = iam.requests.length
    const res = await login('fake-email')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'email_missing' })
    expectFlowCookiesCleared(res, 'fake-email')
    expect(iam.requests.slice(before).some((r) => r.path.startsWith('/auth/OAuth/'))).toBe(false)
  })

  it('without emailCallBack, scans the user object for an email-shaped value', async () => {
    fake.behaviour = { userinfo: { id: 9, login: 'scan', email: null, contacts: [{ kind: 'work', value: 'scan@example.com' }] } }
    const res = await login('fake-scan')
    expect(res.status).toBe(200)
    expect(lastLogin('fake-scan')?.body).toMatchObject({ id: 9, email: 'scan@example.com' })
  })

  it('marks a scanned email unverified, whatever the profile claims about its own email', async () => {
    fake.behaviour = { userinfo: { id: 11, login: 'scan', email: null, email_verified: true, contacts: [{ kind: 'work', value: 'scan2@example.com' }] } }
    const res = await login('fake-scan')
    expect(res.status).toBe(200)
    expect(lastLogin('fake-scan')?.body).toMatchObject({ id: 11, email: 'scan2@example.com', email_verified: false })
  })

  it('drops the profile email_verified claim when the email came from emailCallBack', async () => {
    fake.behaviour = { userinfo: { id: 12, login: 'nomail', email: null, email_verified: true } }
    const res = await login('fake-email')
    expect(res.status).toBe(200)
    expect(lastLogin('fake-email')?.body).toEqual({ id: 12, login: 'nomail', email: 'primary@example.com' })
  })

  it('answers 400 when neither the profile nor the scan yields an email', async () => {
    fake.behaviour = { userinfo: { id: 10, login: 'nobody', email: 'not-an-email', bio: 'mail me at nobody at example' } }
    const before = iam.requests.length
    const res = await login('fake-scan')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'email_missing' })
    expect(iam.requests.slice(before).some((r) => r.path.startsWith('/auth/OAuth/'))).toBe(false)
  })

  it('merges extraUserInfoCallBacks with mode drop and warns once per dropped key', async () => {
    const logged = gw.logs.length
    const res = await login('fake-extra')
    expect(res.status).toBe(200)
    expect(lastLogin('fake-extra')?.body).toEqual({
      id: 4242,
      login: 'octo',
      name: 'Octo Cat',
      email: 'octo@example.com',
      orgs: [{ login: 'acme' }],
      plan: 'team',
      locale: 'fr',
    })
    const dropped = (await flushedLogs(gw, '/api/health'))
      .slice(logged)
      .filter((line) => line.includes('extra user info key dropped'))
      .map((line) => (JSON.parse(line) as { key: string }).key)
      .sort()
    expect(dropped).toEqual(['email', 'login', 'plan'])
  })

  it('redirects with userinfo_failed when the profile request fails', async () => {
    fake.behaviour = { userinfoStatus: 500 }
    const res = await login('fake-scan')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${base}/auth/error?error=userinfo_failed`)
    expectFlowCookiesCleared(res, 'fake-scan')
  })

  it('redirects with callback_failed when an extra user info callback throws', async () => {
    const res = await login('fake-throw')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${base}/auth/error?error=callback_failed`)
    expectFlowCookiesCleared(res, 'fake-throw')
  })
})

// the file's last tests: each stops the gateway and restarts it with a config it must refuse
// (the start error carries the process's output)
describe('start-up checks', () => {
  it('refuses the test callbacks switch in production', async () => {
    await expect(gw.restart({ cookieSecret: 'x'.repeat(40), OAuthProviders: [] }, { NODE_ENV: 'production', GATEWAY_TEST_OAUTH_CALLBACKS: '1' })).rejects.toThrow(
      /GATEWAY_TEST_OAUTH_CALLBACKS is a test switch and is refused in production/,
    )
  })

  it('refuses to start in production without a cookieSecret', async () => {
    await expect(gw.restart({}, { NODE_ENV: 'production', GATEWAY_TEST_OAUTH_CALLBACKS: '' })).rejects.toThrow(/cookieSecret: required in production/)
  })
})
