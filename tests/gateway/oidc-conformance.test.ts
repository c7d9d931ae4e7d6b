/**
 * The OpenID Foundation's OP test plans, one test per module, each named exactly after the module
 * and asserting what it checks: oidcc-basic-certification-test-plan (response_type=code,
 * client_secret_basic unless the module says otherwise), oidcc-config-certification-test-plan,
 * oidcc-rp-initiated-logout-certification-test-plan and
 * oidcc-backchannel-rp-initiated-logout-certification-test-plan. The suite cannot run here; these
 * drive the provider through the gateway with a real relying-party library (oauth4webapi), so a
 * certification run later meets no surprise.
 *
 * Where a module is skipped or lets the provider refuse a feature it does not offer (request
 * objects, the address and phone scopes, unsigned ID tokens), the test asserts that the provider
 * says so the way the module reads it. The suite's HTTPS checks are left to the deployment: these
 * servers are on loopback.
 *
 * Every flow here sends PKCE (S256): the provider requires it of every client, confidential ones
 * included (RFC 9700 section 2.1.1), where the basic plan's modules send none unless told. A
 * certification run configures the suite's client to use PKCE; without it each code-flow module
 * would end at `invalid_request` by this provider's policy, not by a fault it tests for.
 */
import { createServer, type Server } from 'node:http'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  authorizationUrl,
  Browser,
  codeParams,
  formAction,
  formFields,
  insecure,
  redeem,
  signUp,
  startOpStack,
  walkAuthorization,
  type OpStack,
  type RegisteredClient,
} from '../helpers/oidc-op'

let op: OpStack
let receiver: Server
let receiverUrl: string
const logoutTokens: string[] = []

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      logoutTokens.push(new URLSearchParams(body).get('logout_token') ?? '')
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const address = receiver.address()
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/backchannel`
  op = await startOpStack({ iamConfig: () => ({ oidc: { allowLoopbackRequests: true } }) })
})
afterAll(async () => {
  await op?.stop()
  await new Promise<void>((resolve) => receiver?.close(() => resolve()))
})

const AFTER_LOGOUT = 'http://127.0.0.1:9/post-logout'
const jwks = () => createRemoteJWKSet(new URL(op.as.jwks_uri!))

/** The suite's client: confidential (client_secret_basic), third party, one redirect URI, a post-logout one. */
const suiteClient = (extra: Parameters<OpStack['register']>[0] | object = {}) =>
  op.register({ name: 'Conformance RP', postLogoutRedirectUris: [AFTER_LOGOUT], ...extra })

async function signedIn(): Promise<Browser> {
  const browser = new Browser(op.url)
  await signUp(browser)
  return browser
}

interface Flow {
  tokens: oauth.TokenEndpointResponse
  claims: oauth.IDToken
  callback: URL
}

/** One authorization + token request as the suite makes it; `extra` adds or replaces parameters. */
async function authorize(rp: RegisteredClient, browser: Browser, extra: Record<string, string> = {}, options: { reauthenticate?: boolean } = {}): Promise<Flow> {
  const { url: built, verifier, state, nonce } = await authorizationUrl(op, rp, extra)
  // an empty value in `extra` leaves the parameter out
  const url = new URL(built)
  for (const [key, value] of Object.entries(extra)) if (value === '') url.searchParams.delete(key)
  const walk = await walkAuthorization(browser, url.href, rp.redirectUri, options)
  expect(walk.callback, `ended at ${walk.stopped?.status} ${await walk.stopped?.clone().text()}`).toBeDefined()
  expect(walk.callback!.searchParams.get('error')).toBeNull()
  const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, extra.nonce === '' ? undefined : (extra.nonce ?? nonce))
  return { tokens, claims: oauth.getValidatedIdTokenClaims(tokens)!, callback: walk.callback! }
}

async function userinfo(rp: RegisteredClient, token: string, sub: string) {
  return oauth.processUserInfoResponse(op.as, rp.client, sub, await oauth.userInfoRequest(op.as, rp.client, token, insecure))
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('oidcc-basic-certification-test-plan', () => {
  it('oidcc-server', async () => {
    const rp = await suiteClient()
    const { tokens, claims, callback } = await authorize(rp, await signedIn())
    // RFC 9207: the response names the issuer; oauth4webapi checked it, state, and the ID token
    expect(callback.searchParams.get('iss')).toBe(op.issuer)
    expect(tokens.token_type.toLowerCase()).toBe('bearer')
    expect(claims).toMatchObject({ iss: op.issuer, aud: rp.client.client_id })
    expect(claims.exp).toBeGreaterThan(claims.iat)
  })

  it('oidcc-response-type-missing', async () => {
    const rp = await suiteClient()
    const { url } = await authorizationUrl(op, rp, { response_type: '' })
    const bare = new URL(url)
    bare.searchParams.delete('response_type')
    const walk = await walkAuthorization(await signedIn(), bare.href, rp.redirectUri)
    if (walk.callback) {
      expect(['invalid_request', 'unsupported_response_type']).toContain(walk.callback.searchParams.get('error'))
    } else {
      expect(walk.stopped!.status).toBe(400)
      expect(await walk.stopped!.text()).toContain('response_type')
    }
  })

  it('oidcc-idtoken-signature', async () => {
    const rp = await suiteClient()
    const { tokens } = await authorize(rp, await signedIn())
    const header = decodeProtectedHeader(tokens.id_token!)
    expect(header.alg).toBe('RS256')
    expect(header.kid).toEqual(expect.any(String))
    await jwtVerify(tokens.id_token!, jwks(), { issuer: op.issuer, audience: rp.client.client_id })
  })

  it('oidcc-idtoken-unsigned', () => {
    // the module needs a client registered for alg none; the provider offers no unsigned ID tokens
    expect(op.as.id_token_signing_alg_values_supported).not.toContain('none')
  })

  it('oidcc-userinfo-get', async () => {
    const rp = await suiteClient()
    const { tokens, claims } = await authorize(rp, await signedIn())
    const res = await fetch(op.as.userinfo_endpoint!, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { sub: string }).sub).toBe(claims.sub)
  })

  it('oidcc-userinfo-post-header', async () => {
    const rp = await suiteClient()
    const { tokens, claims } = await authorize(rp, await signedIn())
    const res = await fetch(op.as.userinfo_endpoint!, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { sub: string }).sub).toBe(claims.sub)
  })

  it('oidcc-userinfo-post-body', async () => {
    const rp = await suiteClient()
    const { tokens, claims } = await authorize(rp, await signedIn())
    const res = await fetch(op.as.userinfo_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: tokens.access_token }),
    })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { sub: string }).sub).toBe(claims.sub)
  })

  it('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', async () => {
    const rp = await suiteClient()
    const { claims } = await authorize(rp, await signedIn(), { nonce: '' })
    expect(claims.nonce).toBeUndefined()
  })

  it('oidcc-scope-profile', async () => {
    const rp = await suiteClient()
    const { tokens, claims } = await authorize(rp, await signedIn(), { scope: 'openid profile' })
    const info = await userinfo(rp, tokens.access_token, claims.sub)
    expect(info.name).toBe('Ada Lovelace')
    expect(info.email).toBeUndefined()
  })

  it('oidcc-scope-email', async () => {
    const rp = await suiteClient()
    const browser = new Browser(op.url)
    const email = await signUp(browser)
    const { tokens, claims } = await authorize(rp, browser, { scope: 'openid email' })
    const info = await userinfo(rp, tokens.access_token, claims.sub)
    expect(info).toMatchObject({ email, email_verified: false })
    expect(info.name).toBeUndefined()
  })

  it('oidcc-scope-address', async () => {
    // the suite skips the module when scopes_supported lacks it; an RP asking anyway is not refused
    expect(op.as.scopes_supported).not.toContain('address')
    const rp = await suiteClient()
    const { tokens, claims } = await authorize(rp, await signedIn(), { scope: 'openid address' })
    expect((await userinfo(rp, tokens.access_token, claims.sub)).address).toBeUndefined()
  })

  it('oidcc-scope-phone', async () => {
    expect(op.as.scopes_supported).not.toContain('phone')
    const rp = await suiteClient()
    const { tokens, claims } = await authorize(rp, await signedIn(), { scope: 'openid phone' })
    expect((await userinfo(rp, tokens.access_token, claims.sub)).phone_number).toBeUndefined()
  })

  it('oidcc-scope-all', async () => {
    const rp = await suiteClient()
    const { tokens, claims } = await authorize(rp, await signedIn(), { scope: 'openid email phone address profile' })
    const info = await userinfo(rp, tokens.access_token, claims.sub)
    expect(info).toMatchObject({ name: 'Ada Lovelace', email: expect.any(String), email_verified: false })
  })

  it('releases the language the person chose as the locale claim of the profile scope, and no locale before they chose one', async () => {
    expect(op.as.claims_supported).toContain('locale')
    const rp = await suiteClient()
    const browser = await signedIn()
    const before = await authorize(rp, browser, { scope: 'openid profile' })
    expect((await userinfo(rp, before.tokens.access_token, before.claims.sub)).locale).toBeUndefined()
    expect((await browser.post('/api/auth/profile', { locale: 'de' })).status).toBe(200)
    const after = await authorize(rp, browser, { scope: 'openid profile' })
    expect(await userinfo(rp, after.tokens.access_token, after.claims.sub)).toMatchObject({ name: 'Ada Lovelace', locale: 'de' })
    const withoutProfile = await authorize(rp, browser, { scope: 'openid email' })
    expect((await userinfo(rp, withoutProfile.tokens.access_token, withoutProfile.claims.sub)).locale).toBeUndefined()
  })

  it('oidcc-alternate-happy-flow', async () => {
    const rp = await suiteClient()
    const browser = await signedIn()
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp, { scope: 'profile email openid' })
    // the same request with its parameters in reverse order
    const reversed = new URL(url)
    reversed.search = new URLSearchParams([...new URL(url).searchParams].reverse()).toString()
    const walk = await walkAuthorization(browser, reversed.href, rp.redirectUri)
    const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
    const info = await userinfo(rp, tokens.access_token, oauth.getValidatedIdTokenClaims(tokens)!.sub)
    expect(info.name).toBe('Ada Lovelace')
  })

  it('oidcc-display-page', async () => {
    const rp = await suiteClient()
    expect((await authorize(rp, await signedIn(), { display: 'page' })).tokens.access_token).toBeTruthy()
  })

  it('oidcc-display-popup', async () => {
    const rp = await suiteClient()
    expect((await authorize(rp, await signedIn(), { display: 'popup' })).tokens.access_token).toBeTruthy()
  })

  it('oidcc-prompt-login', async () => {
    const rp = await suiteClient()
    const browser = await signedIn()
    const first = await authorize(rp, browser)
    // auth_time has a resolution of one second
    await pause(1100)
    const { url } = await authorizationUrl(op, rp, { prompt: 'login' })
    // the person is asked to sign in again
    const asked = await walkAuthorization(browser, url, rp.redirectUri)
    expect(asked.stopped?.status).toBe(403)
    const second = await authorize(rp, browser, { prompt: 'login' }, { reauthenticate: true })
    expect(second.claims.sub).toBe(first.claims.sub)
    // auth_time, when present, is the new sign-in, after the first ID token was issued
    if (second.claims.auth_time !== undefined) expect(second.claims.auth_time).toBeGreaterThan(first.claims.iat)
  })

  it('oidcc-prompt-none-not-logged-in', async () => {
    const rp = await suiteClient()
    const { url, state } = await authorizationUrl(op, rp, { prompt: 'none' })
    const walk = await walkAuthorization(new Browser(op.url), url, rp.redirectUri)
    expect(walk.callback!.searchParams.get('error')).toBe('login_required')
    expect(walk.callback!.searchParams.get('state')).toBe(state)
  })

  it('oidcc-prompt-none-logged-in', async () => {
    const rp = await suiteClient()
    const browser = await signedIn()
    const first = await authorize(rp, browser)
    const second = await authorize(rp, browser, { prompt: 'none' })
    expect(second.claims.sub).toBe(first.claims.sub)
  })

  it('oidcc-max-age-1', async () => {
    const rp = await suiteClient()
    const browser = await signedIn()
    const first = await authorize(rp, browser)
    // the provider counts whole seconds: more than one has passed since the sign-in only after two
    await pause(2100)
    const { url } = await authorizationUrl(op, rp, { max_age: '1' })
    const asked = await walkAuthorization(browser, url, rp.redirectUri)
    expect(asked.stopped?.status).toBe(403)
    const second = await authorize(rp, browser, { max_age: '1' }, { reauthenticate: true })
    // with max_age the ID token carries auth_time (OIDC Core 2), here the new sign-in
    expect(second.claims.auth_time).toEqual(expect.any(Number))
    expect(second.claims.auth_time!).toBeGreaterThan(first.claims.iat)
  })

  it('oidcc-max-age-10000', async () => {
    const rp = await suiteClient()
    const browser = await signedIn()
    const first = await authorize(rp, browser)
    const second = await authorize(rp, browser, { max_age: '10000' })
    // auth_time present, and no new sign-in: it is the one from before the first ID token
    expect(second.claims.auth_time).toEqual(expect.any(Number))
    expect(second.claims.auth_time!).toBeLessThanOrEqual(first.claims.iat)
  })

  it('oidcc-ensure-request-with-unknown-parameter-succeeds', async () => {
    const rp = await suiteClient()
    expect((await authorize(rp, await signedIn(), { extra: 'foobar' })).tokens.access_token).toBeTruthy()
  })

  it('oidcc-id-token-hint', async () => {
    const rp = await suiteClient()
    const browser = await signedIn()
    const first = await authorize(rp, browser)
    const second = await authorize(rp, browser, { prompt: 'none', id_token_hint: first.tokens.id_token! })
    expect(second.claims.sub).toBe(first.claims.sub)
    expect(second.claims.auth_time).toBe(first.claims.auth_time)
  })

  it('oidcc-login-hint', async () => {
    const rp = await suiteClient()
    const browser = new Browser(op.url)
    const email = await signUp(browser)
    expect((await authorize(rp, browser, { login_hint: email })).tokens.access_token).toBeTruthy()
  })

  it('oidcc-ui-locales', async () => {
    const rp = await suiteClient()
    expect((await authorize(rp, await signedIn(), { ui_locales: 'se' })).tokens.access_token).toBeTruthy()
  })

  it('oidcc-claims-locales', async () => {
    const rp = await suiteClient()
    expect((await authorize(rp, await signedIn(), { claims_locales: 'se' })).tokens.access_token).toBeTruthy()
  })

  it('oidcc-ensure-request-with-acr-values-succeeds', async () => {
    const rp = await suiteClient()
    expect((await authorize(rp, await signedIn(), { acr_values: '1 2' })).tokens.access_token).toBeTruthy()
  })

  async function codeUsedTwice() {
    const rp = await suiteClient()
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(await signedIn(), url, rp.redirectUri)
    const params = codeParams(op, rp, walk.callback!, state)
    const tokens = await redeem(op, rp, params, verifier, nonce)
    const second = await redeem(op, rp, params, verifier, nonce).then(
      () => 'tokens',
      (error: { error?: string }) => error.error,
    )
    return { rp, tokens, second }
  }

  it('oidcc-codereuse', async () => {
    expect((await codeUsedTwice()).second).toBe('invalid_grant')
  })

  it('oidcc-codereuse-30seconds', async () => {
    // the module waits 30 seconds first; the refusal here does not depend on time, so it does not
    const { tokens, second } = await codeUsedTwice()
    expect(second).toBe('invalid_grant')
    // and the first use's access token stops working (RFC 6749 section 4.1.2)
    const res = await fetch(op.as.userinfo_endpoint!, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(res.status).toBe(401)
  })

  it('oidcc-ensure-registered-redirect-uri', async () => {
    const rp = await suiteClient()
    const { url } = await authorizationUrl(op, rp, { redirect_uri: `${rp.redirectUri}/not-registered` })
    const res = await (await signedIn()).fetch(url)
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
    expect(await res.text()).toContain('did not register')
  })

  // Fails here, on purpose: oidc-provider 9 serves POST at the authorization endpoint (OIDC Core
  // 3.1.2.1) only with SameSite=None on its session cookie, which browsers take only when Secure;
  // the provider turns both on for an https issuer (features/oidc/provider.ts), and this stack's
  // issuer is plain http. A certification run is made against an https deployment.
  it.fails('oidcc-ensure-post-request-succeeds', async () => {
    const rp = await suiteClient()
    const browser = await signedIn()
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const parts = new URL(url)
    const posted = await browser.fetch(`${parts.origin}${parts.pathname}`, { form: Object.fromEntries(parts.searchParams) })
    expect([302, 303], await posted.clone().text()).toContain(posted.status)
    const walk = await walkAuthorization(browser, new URL(posted.headers.get('location')!, op.url).href, rp.redirectUri)
    expect((await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)).access_token).toBeTruthy()
  })

  it('oidcc-server-client-secret-post', async () => {
    const rp = await suiteClient({ authMethod: 'client_secret_post' })
    const { claims } = await authorize(rp, await signedIn())
    expect(claims.aud).toBe(rp.client.client_id)
    // a wrong secret in the body is refused
    const wrong = { ...rp, auth: oauth.ClientSecretPost(`${rp.secret}x`) }
    await expect(authorize(wrong, await signedIn())).rejects.toMatchObject({ error: 'invalid_client' })
  })

  it('oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported', async () => {
    expect(op.as.request_uri_parameter_supported).toBe(false)
    const rp = await suiteClient()
    const { url, state } = await authorizationUrl(op, rp, { request_uri: 'https://rp.example.test/request.jwt' })
    const walk = await walkAuthorization(await signedIn(), url, rp.redirectUri)
    expect(walk.callback!.searchParams.get('error')).toBe('request_uri_not_supported')
    expect(walk.callback!.searchParams.get('state')).toBe(state)
  })

  it('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported', async () => {
    const rp = await suiteClient()
    const requestObject = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ client_id: rp.client.client_id, scope: 'openid' })).toString('base64url')}.`
    const { url, state } = await authorizationUrl(op, rp, { request: requestObject })
    const walk = await walkAuthorization(await signedIn(), url, rp.redirectUri)
    expect(walk.callback!.searchParams.get('error')).toBe('request_not_supported')
    expect(walk.callback!.searchParams.get('state')).toBe(state)
  })

  it('oidcc-claims-essential', async () => {
    const rp = await suiteClient()
    const claimsRequest = JSON.stringify({ userinfo: { name: { essential: true } } })
    const { tokens, claims } = await authorize(rp, await signedIn(), { scope: 'openid profile', claims: claimsRequest })
    expect((await userinfo(rp, tokens.access_token, claims.sub)).name).toBe('Ada Lovelace')
  })

  it('oidcc-ensure-request-object-with-redirect-uri', () => {
    // skipped by the suite when unsigned request objects are not offered
    expect(op.as.request_object_signing_alg_values_supported ?? []).not.toContain('none')
    expect(op.as.request_parameter_supported ?? false).toBe(false)
  })

  it('oidcc-refresh-token', async () => {
    expect(op.as.grant_types_supported).toContain('refresh_token')
    const rp = await suiteClient()
    const first = await authorize(rp, await signedIn(), { scope: 'openid offline_access', prompt: 'consent' })
    expect(first.tokens.refresh_token).toMatch(/^[\x20-\x7E]+$/)
    const refreshed = await oauth.processRefreshTokenResponse(op.as, rp.client, await oauth.refreshTokenGrantRequest(op.as, rp.client, rp.auth, first.tokens.refresh_token!, insecure))
    expect(refreshed.access_token).toBeTruthy()
    const second = oauth.getValidatedIdTokenClaims(refreshed)
    if (second) {
      // OIDC Core 12.2: the same iss, sub, aud and auth_time as the first ID token
      expect(second).toMatchObject({ iss: first.claims.iss, sub: first.claims.sub, aud: first.claims.aud })
      expect(second.auth_time).toBe(first.claims.auth_time)
    }
  })

  it('oidcc-ensure-request-with-valid-pkce-succeeds', async () => {
    expect(op.as.code_challenge_methods_supported).toContain('S256')
    const rp = await suiteClient()
    expect((await authorize(rp, await signedIn())).tokens.access_token).toBeTruthy()
  })
})

describe('oidcc-config-certification-test-plan', () => {
  it('oidcc-discovery-endpoint-verification', async () => {
    const res = await fetch(`${op.issuer}/.well-known/openid-configuration`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const meta = (await res.json()) as Record<string, unknown>
    expect(meta.issuer).toBe(op.issuer)
    expect(meta.response_types_supported).toContain('code')
    expect(meta.subject_types_supported).toEqual(expect.arrayContaining(['public']))
    expect(meta.id_token_signing_alg_values_supported).toContain('RS256')
    for (const key of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri']) expect(String(meta[key]).startsWith(`${op.issuer}/`), key).toBe(true)
    expect(meta.scopes_supported).toContain('openid')
    for (const scope of meta.scopes_supported as string[]) expect(scope).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]+$/)
    expect(meta.grant_types_supported).toContain('authorization_code')
    expect(meta.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'name']))
    expect(Array.isArray(meta.code_challenge_methods_supported)).toBe(true)
    const keys = ((await (await fetch(String(meta.jwks_uri))).json()) as { keys: Array<Record<string, unknown>> }).keys
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) {
      expect(key.kid).toEqual(expect.any(String))
      // published keys are public: no private parts
      for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key, part).not.toHaveProperty(part)
    }
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length)
  })
})

/** The suite's logout modules: a normal flow, then the browser at the end-session endpoint with `params`. */
async function toEndSession(params: (flow: Flow, rp: RegisteredClient) => Record<string, string>, extra: object = {}) {
  const rp = await suiteClient(extra)
  const browser = await signedIn()
  const flow = await authorize(rp, browser)
  const url = new URL(op.as.end_session_endpoint!)
  url.search = new URLSearchParams(params(flow, rp)).toString()
  const page = await browser.fetch(url.href)
  return { rp, browser, flow, page }
}

/** The person presses "Sign me out" on the provider's page. */
async function confirmSignOut(browser: Browser, page: Response) {
  expect(page.status).toBe(200)
  const html = await page.text()
  expect(html).toContain('Sign out?')
  return browser.fetch(formAction(html, 'op.logoutForm'), { form: { ...formFields(html, 'op.logoutForm'), logout: 'yes' } })
}

async function expectSignedOutPage(browser: Browser, confirmed: Response) {
  expect(confirmed.status).toBe(303)
  const location = new URL(confirmed.headers.get('location')!, op.url)
  expect(location.href.startsWith(`${op.issuer}/`)).toBe(true)
  const done = await browser.fetch(location.href)
  expect(done.status).toBe(200)
  expect(await done.text()).toContain('You are signed out')
  expect(((await (await browser.fetch('/api/auth/session')).json()) as { authenticated: boolean }).authenticated).toBe(false)
}

describe('oidcc-rp-initiated-logout-certification-test-plan', () => {
  it('oidcc-rp-initiated-logout-discovery-endpoint-verification', () => {
    expect(op.as.end_session_endpoint).toBe(`${op.issuer}/session/end`)
  })

  it('oidcc-rp-initiated-logout', async () => {
    const { browser, page } = await toEndSession((flow) => ({ id_token_hint: flow.tokens.id_token!, post_logout_redirect_uri: AFTER_LOGOUT, state: 'logout-state' }))
    const confirmed = await confirmSignOut(browser, page)
    expect(confirmed.status).toBe(303)
    const back = new URL(confirmed.headers.get('location')!)
    expect(`${back.origin}${back.pathname}`).toBe(AFTER_LOGOUT)
    // only the state comes back (OIDC RP-Initiated Logout 1.0 section 3)
    expect([...back.searchParams]).toEqual([['state', 'logout-state']])
  })

  it('oidcc-rp-initiated-logout-bad-post-logout-redirect-uri', async () => {
    const { page } = await toEndSession((flow) => ({ id_token_hint: flow.tokens.id_token!, post_logout_redirect_uri: `${AFTER_LOGOUT}/not-registered`, state: 's' }))
    expect(page.status).toBe(400)
    expect(page.headers.get('location')).toBeNull()
  })

  it('oidcc-rp-initiated-logout-modified-id-token-hint', async () => {
    const { page } = await toEndSession((flow) => {
      const [, payload] = flow.tokens.id_token!.split('.')
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`
      return { id_token_hint: unsigned, post_logout_redirect_uri: AFTER_LOGOUT, state: 's' }
    })
    // an error page, never the way back to the app
    expect(page.status).toBe(400)
    expect(page.headers.get('location')).toBeNull()
  })

  it('oidcc-rp-initiated-logout-no-id-token-hint', async () => {
    const { browser, page } = await toEndSession(() => ({ post_logout_redirect_uri: AFTER_LOGOUT, state: 's' }))
    // the provider cannot tell which app asks: it asks the person, and never sends them to that address
    await expectSignedOutPage(browser, await confirmSignOut(browser, page))
  })

  it('oidcc-rp-initiated-logout-no-params', async () => {
    const { browser, page } = await toEndSession(() => ({}))
    await expectSignedOutPage(browser, await confirmSignOut(browser, page))
  })

  it('oidcc-rp-initiated-logout-no-post-logout-redirect-uri', async () => {
    const { browser, page } = await toEndSession((flow) => ({ id_token_hint: flow.tokens.id_token! }))
    await expectSignedOutPage(browser, await confirmSignOut(browser, page))
  })

  it('oidcc-rp-initiated-logout-no-state', async () => {
    const { browser, page } = await toEndSession((flow) => ({ id_token_hint: flow.tokens.id_token!, post_logout_redirect_uri: AFTER_LOGOUT }))
    const confirmed = await confirmSignOut(browser, page)
    expect(confirmed.status).toBe(303)
    expect(confirmed.headers.get('location')).toBe(AFTER_LOGOUT)
  })

  it('oidcc-rp-initiated-logout-only-state', async () => {
    const { browser, page } = await toEndSession(() => ({ state: 'only-state' }))
    await expectSignedOutPage(browser, await confirmSignOut(browser, page))
  })
})

describe('oidcc-backchannel-rp-initiated-logout-certification-test-plan', () => {
  it('oidcc-backchannel-logout-discovery-endpoint-verification', () => {
    expect(op.as.backchannel_logout_supported).toBe(true)
    expect(op.as.backchannel_logout_session_supported).toBe(true)
    expect(op.as.end_session_endpoint).toBe(`${op.issuer}/session/end`)
  })

  it('oidcc-backchannel-rp-initiated-logout', async () => {
    const before = logoutTokens.length
    const { browser, flow, page, rp } = await toEndSession(
      (f) => ({ id_token_hint: f.tokens.id_token!, post_logout_redirect_uri: AFTER_LOGOUT, state: 'bc-state' }),
      { backchannelLogoutUri: receiverUrl },
    )
    const confirmed = await confirmSignOut(browser, page)
    expect(new URL(confirmed.headers.get('location')!).searchParams.get('state')).toBe('bc-state')
    const received = logoutTokens.slice(before)
    expect(received).toHaveLength(1)
    const { payload } = await jwtVerify(received[0]!, jwks(), { issuer: op.issuer, audience: rp.client.client_id, typ: 'logout+jwt' })
    expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} })
    expect(payload.sub).toBe(flow.claims.sub)
    expect(payload.sid).toBe(flow.claims.sid)
    expect(payload).not.toHaveProperty('nonce')
    expect(payload.iat).toEqual(expect.any(Number))
    expect(payload.jti).toEqual(expect.any(String))
  })
})
