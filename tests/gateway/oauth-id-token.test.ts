/**
 * ID token and token endpoint failures, produced by a scriptable provider (tests/helpers/oauth2-fake.ts)
 * under an issuer with a path (like https://host/realms/x). Every failure redirects to
 * redirectUrlOnError with its code and clears the flow cookies.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { freePort, startFakeIam, type FakeIam } from '../helpers/fake-iam'
import { setupGateway } from '../helpers/nuxt-gateway'
import { startOAuth2Fake, type FakeProvider } from '../helpers/oauth2-fake'
import { createBrowser, type Browser } from '../helpers/oidc-provider'

let iam: FakeIam
let fake: FakeProvider

const cookieHeader = (res: Response, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))

function expectFlowCookiesCleared(res: Response) {
  for (const name of ['staterealm', 'pkce_vrealm', 'noncerealm']) expect(cookieHeader(res, name), name).toMatch(new RegExp(`^${name}=; Max-Age=0;`))
}

function errorCode(res: Response): string | null {
  expect(res.status).toBe(302)
  const location = new URL(res.headers.get('location') ?? '')
  expect(location.origin + location.pathname).toBe(`${base}/auth/error`)
  return location.searchParams.get('error')
}

/** Starts the flow, lets the fake approve, and returns the callback response. */
async function login(browser: Browser = createBrowser(), beforeCallback?: (b: Browser) => void): Promise<Response> {
  const start = await browser.request(`${base}/oauth/realm`)
  expect(start.status).toBe(302)
  const approved = await browser.request(start.headers.get('location') ?? '')
  const callback = approved.headers.get('location') ?? ''
  expect(callback.startsWith(`${base}/oauth/callback/realm?`)).toBe(true)
  beforeCallback?.(browser)
  return browser.request(callback)
}

const port = await freePort()
const base = `http://127.0.0.1:${port}`
let gatewayConfig: Record<string, unknown>

beforeAll(async () => {
  iam = await startFakeIam()
  fake = await startOAuth2Fake({ oidc: true, issuerPath: '/realms/test', clients: { 'realm-client': 'realm-secret-0123456789' } })
  gatewayConfig = {
    iam: { url: iam.url, hmac: iam.hmac },
    cookieSecret: 'another-test-cookie-secret-0123456789-abcdef',
    OAuthProviders: [
      {
        kind: 'oidc',
        name: 'realm',
        issuer: fake.issuer,
        clientId: 'realm-client',
        clientSecret: 'realm-secret-0123456789',
        redirectUri: `${base}/oauth/callback/realm`,
        defaultScopes: ['email'],
        supportPKCE: true,
        redirectUrlOnSuccess: `${base}/account`,
        redirectUrlOnError: `${base}/auth/error`,
      },
    ],
  }
})

afterAll(async () => {
  await fake?.stop()
  await iam?.stop()
})
await setupGateway({ port, config: () => gatewayConfig })

beforeEach(() => {
  fake.behaviour = {}
})

describe('an issuer with a path', () => {
  it('is discovered under <issuer>/.well-known/openid-configuration and completes the flow', async () => {
    const res = await login()
    expect(res.status).toBe(200)
    expectFlowCookiesCleared(res)
    expect(fake.requests.some((r) => r.path === '/.well-known/openid-configuration')).toBe(true)
    // openid is added to the configured scopes for an OIDC provider
    const authorize = fake.requests.filter((r) => r.path === '/authorize').at(-1)!
    expect(authorize.query.get('scope')).toBe('email openid')
    const token = fake.requests.filter((r) => r.path === '/token').at(-1)!
    expect(token.headers.authorization).toMatch(/^Basic /)
    expect(token.form.get('code_verifier')).toMatch(/^[\w-]{43}$/)
    expect(iam.users.get('oidc-user@example.com')).toMatchObject({ sub: 'user-1', name: 'OIDC User' })
  })

  it('accepts an ID token whose azp is the client and one without at_hash', async () => {
    fake.behaviour = { idTokenClaims: { azp: 'realm-client' }, atHash: 'omit' }
    expect((await login()).status).toBe(200)
  })
})

describe('failures after the provider redirect', () => {
  const cases: Array<{ rule: string; behaviour: FakeProvider['behaviour']; error: string }> = [
    { rule: 'the token endpoint refuses the code', behaviour: { tokenStatus: 400 }, error: 'token_exchange_failed' },
    { rule: 'the token endpoint fails', behaviour: { tokenStatus: 500 }, error: 'token_exchange_failed' },
    { rule: 'the ID token signature is not from the provider key set', behaviour: { foreignSignature: true }, error: 'id_token_invalid' },
    { rule: 'the ID token nonce differs', behaviour: { idTokenClaims: { nonce: 'not-the-cookie' } }, error: 'id_token_invalid' },
    { rule: 'the ID token has no nonce', behaviour: { idTokenClaims: { nonce: undefined } }, error: 'id_token_invalid' },
    { rule: 'azp names another client', behaviour: { idTokenClaims: { azp: 'someone-else' } }, error: 'id_token_invalid' },
    { rule: 'at_hash does not match the access token', behaviour: { atHash: 'wrong' }, error: 'id_token_invalid' },
    { rule: 'the audience is another client', behaviour: { idTokenClaims: { aud: 'other-client' } }, error: 'id_token_invalid' },
    { rule: 'the ID token iss is another issuer', behaviour: { idTokenClaims: { iss: 'http://127.0.0.1:1/realms/test' } }, error: 'id_token_invalid' },
    { rule: 'the ID token is expired', behaviour: { idTokenClaims: { exp: Math.floor(Date.now() / 1000) - 3600 } }, error: 'id_token_invalid' },
    { rule: 'userinfo belongs to another subject', behaviour: { userinfo: { sub: 'user-2', email: 'victim@example.com' } }, error: 'userinfo_invalid' },
  ]
  for (const { rule, behaviour, error } of cases) {
    it(`redirects with ${error} when ${rule}`, async () => {
      fake.behaviour = behaviour
      const users = iam.users.size
      const res = await login()
      expect(errorCode(res)).toBe(error)
      expectFlowCookiesCleared(res)
      expect(cookieHeader(res, '__Secure-a')).toBeUndefined()
      expect(iam.users.size).toBe(users)
    })
  }

  it('redirects with id_token_invalid when the nonce cookie is gone (nonce missing on our side)', async () => {
    const tokenCalls = fake.requests.filter((r) => r.path === '/token').length
    const res = await login(undefined, (b) => b.cookies(base).delete('noncerealm'))
    expect(errorCode(res)).toBe('id_token_invalid')
    expectFlowCookiesCleared(res)
    // the code is not redeemed without the values that bind it to this browser
    expect(fake.requests.filter((r) => r.path === '/token').length).toBe(tokenCalls)
  })

  it('redirects with invalid_state when the PKCE verifier cookie is gone', async () => {
    const res = await login(undefined, (b) => b.cookies(base).delete('pkce_vrealm'))
    expect(errorCode(res)).toBe('invalid_state')
    expectFlowCookiesCleared(res)
  })
})
