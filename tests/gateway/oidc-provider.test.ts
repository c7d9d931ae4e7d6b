/**
 * The OpenID Provider end to end: a real relying-party library (oauth4webapi) against the built
 * gateway + IAM, the provider reached only through the gateway's /oidc forwarding.
 */
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hmac, PASSWORD } from '../e2e/auth-stack'
import { createIamClient } from '../../iam/client/iam-client'
import { OIDC_BODY_LIMIT_BYTES } from '../../iam/contract/oidc-mount'
import { FRAME_HEADERS } from '../helpers/frame-headers'
import { LOOPBACK_SCRAPER, moved, scrapeMetrics } from '../helpers/prometheus'
import { authorizationUrl, Browser, codeParams, insecure, redeem, signUp, startOpStack, walkAuthorization, type OpStack } from '../helpers/oidc-op'

let op: OpStack

beforeAll(async () => {
  op = await startOpStack()
})
afterAll(() => op?.stop())

describe('discovery', () => {
  it('names the gateway origin + /oidc as issuer and every endpoint under it', async () => {
    expect(op.as.issuer).toBe(`${op.url}/oidc`)
    for (const key of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'introspection_endpoint', 'revocation_endpoint', 'end_session_endpoint'] as const) {
      expect(String(op.as[key]).startsWith(`${op.url}/oidc/`), key).toBe(true)
    }
    expect(op.as.code_challenge_methods_supported).toEqual(['S256'])
    expect(op.as.authorization_response_iss_parameter_supported).toBe(true)
  })

  it('offers only the code response type: no implicit or hybrid flow hands tokens to the browser (RFC 9700 section 2.1.2)', () => {
    expect(op.as.response_types_supported).toEqual(['code'])
    expect(op.as.grant_types_supported).not.toContain('implicit')
  })
})

describe('authorization code + PKCE', () => {
  it('a first-party client signs a signed-in person in without a consent page; the ID token names the account by its public id and userinfo gives the scoped claims', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true })
    const browser = new Browser(op.url)
    const email = await signUp(browser)
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(browser, url, rp.redirectUri, { consent: 'stop' })
    expect(walk.consentUid).toBeUndefined()
    expect(walk.callback).toBeDefined()
    const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
    const claims = oauth.getValidatedIdTokenClaims(tokens)!
    expect(claims.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    // OIDC Core 5.4: with an access token issued, scope claims come from userinfo, not the ID token
    expect(claims.email).toBeUndefined()
    // RFC 8176: the session was opened with a password
    expect(claims.amr).toEqual(['pwd'])
    const info = await oauth.processUserInfoResponse(op.as, rp.client, claims.sub, await oauth.userInfoRequest(op.as, rp.client, tokens.access_token, insecure))
    expect(info).toMatchObject({ sub: claims.sub, email, name: 'Ada Lovelace' })
  })

  it('a third-party client gets the code only after the person allows it on the consent step', async () => {
    const rp = await op.register({ name: 'Partner app' })
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const stopped = await walkAuthorization(browser, url, rp.redirectUri, { consent: 'stop' })
    expect(stopped.consentUid).toBeDefined()
    const details = (await (await browser.fetch(`/interaction/${stopped.consentUid}/details`)).json()) as { data: { client: { name: string }; scopes: string[] } }
    expect(details.data.client.name).toBe('Partner app')
    expect(details.data.scopes).toEqual(expect.arrayContaining(['openid', 'email', 'profile']))
    const walk = await walkAuthorization(browser, `/interaction/${stopped.consentUid}`, rp.redirectUri)
    const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
    expect(tokens.access_token).toBeTruthy()
  })

  it('denying consent sends the client access_denied', async () => {
    const rp = await op.register({ name: 'Nosy app' })
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url, state } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(browser, url, rp.redirectUri, { consent: 'deny' })
    expect(walk.callback!.searchParams.get('error')).toBe('access_denied')
    expect(walk.callback!.searchParams.get('state')).toBe(state)
  })

  it('a signed-out browser is sent to the interaction page, whose continue step needs a sign-in', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true })
    const browser = new Browser(op.url)
    const { url } = await authorizationUrl(op, rp)
    const first = await browser.fetch(url)
    expect(first.status).toBe(303)
    const location = new URL(first.headers.get('location')!, op.url)
    expect(location.pathname).toMatch(/^\/interaction\/[A-Za-z0-9_-]+$/)
    const uid = location.pathname.split('/').pop()
    const continued = await browser.post(`/interaction/${uid}/login`)
    expect(continued.status).toBe(401)
  })

  it('prompt=none without a provider session answers login_required to the client', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true })
    const browser = new Browser(op.url)
    const { url, state } = await authorizationUrl(op, rp, { prompt: 'none' })
    const walk = await walkAuthorization(browser, url, rp.redirectUri)
    expect(walk.callback!.searchParams.get('error')).toBe('login_required')
    expect(walk.callback!.searchParams.get('state')).toBe(state)
  })

  it('an unregistered redirect URI is refused on a page, never redirected to', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true })
    const browser = new Browser(op.url)
    const { url } = await authorizationUrl(op, rp, { redirect_uri: 'https://attacker.example/cb' })
    const res = await browser.fetch(url)
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
    expect(await res.text()).toContain('did not register')
  })

  it('a code redeemed twice is refused the second time and the tokens of the first are revoked', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true })
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(browser, url, rp.redirectUri)
    const params = codeParams(op, rp, walk.callback!, state)
    const tokens = await redeem(op, rp, params, verifier, nonce)
    await expect(redeem(op, rp, params, verifier, nonce)).rejects.toMatchObject({ error: 'invalid_grant' })
    const introspected = await oauth.processIntrospectionResponse(op.as, rp.client, await oauth.introspectionRequest(op.as, rp.client, rp.auth, tokens.access_token, insecure))
    expect(introspected.active).toBe(false)
  })
})

describe('the organization scope', () => {
  /** A person signed in to the gateway in a browser, owner of organizations `names` (made on the IAM with that session). */
  async function memberOf(names: string[]) {
    const browser = new Browser(op.url)
    await signUp(browser)
    const iam = createIamClient({ baseUrl: op.iam.url, hmac })
    const ids: string[] = []
    for (const [i, name] of names.entries()) {
      const res = await iam.request<{ data: { org: { id: string } } }>({
        method: 'POST',
        path: '/orgs',
        body: { name, slug: `scope-${Date.now().toString(36)}-${i}` },
        cookies: { canary_id: browser.cookies.get('canary_id')!, session: browser.cookies.get('session')! },
        headers: { authorization: `Bearer ${browser.cookies.get('__Secure-a')}` },
        // what the browser's fetch sends, and so what the gateway forwarded when the session began
        userAgent: 'node',
      })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      ids.push(res.body!.data.org.id)
    }
    return { browser, ids }
  }

  async function userInfo(rp: Awaited<ReturnType<OpStack['register']>>, browser: Browser, scope: string) {
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp, { scope })
    const walk = await walkAuthorization(browser, url, rp.redirectUri)
    const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
    const sub = oauth.getValidatedIdTokenClaims(tokens)!.sub
    return oauth.processUserInfoResponse(op.as, rp.client, sub, await oauth.userInfoRequest(op.as, rp.client, tokens.access_token, insecure))
  }

  it('releases every organization of the person as `orgs`, each with its role and permissions, to a client granted the scope', async () => {
    const rp = await op.register({ name: 'Org app', firstParty: true, scope: 'openid email profile organization' })
    const { browser, ids } = await memberOf(['Scope One', 'Scope Two'])
    expect(op.as.scopes_supported).toContain('organization')
    const info = await userInfo(rp, browser, 'openid organization')
    const orgs = info.orgs as Array<{ id: string; slug: string; role: string; permissions: string[] }>
    expect(orgs.map((o) => o.id)).toEqual(ids)
    for (const org of orgs) {
      expect(org.role).toBe('owner')
      expect(org.permissions).toContain('organization:delete')
      expect(org.slug).toMatch(/^scope-/)
    }
  })

  it('releases no organization without the scope, even to a client that may ask for it', async () => {
    const rp = await op.register({ name: 'Org app, not asking', firstParty: true, scope: 'openid email profile organization' })
    const { browser } = await memberOf(['Scope Three'])
    const info = await userInfo(rp, browser, 'openid email')
    expect(info.orgs).toBeUndefined()
    expect(info.email).toBeDefined()
  })
})

describe('client credentials, introspection, revocation', () => {
  it('a machine client gets a token that introspects active until revoked', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'orders:read' })
    const tokens = await oauth.processClientCredentialsResponse(op.as, rp.client, await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, new URLSearchParams(), insecure))
    const active = await oauth.processIntrospectionResponse(op.as, rp.client, await oauth.introspectionRequest(op.as, rp.client, rp.auth, tokens.access_token, insecure))
    expect(active.active).toBe(true)
    expect(active.client_id).toBe(rp.client.client_id)
    await oauth.processRevocationResponse(await oauth.revocationRequest(op.as, rp.client, rp.auth, tokens.access_token, insecure))
    const revoked = await oauth.processIntrospectionResponse(op.as, rp.client, await oauth.introspectionRequest(op.as, rp.client, rp.auth, tokens.access_token, insecure))
    expect(revoked.active).toBe(false)
  })
})

describe('account events close grants; connected apps', () => {
  async function signedInApp(name: string) {
    const rp = await op.register({ name })
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(browser, url, rp.redirectUri)
    const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
    const active = async () =>
      (await oauth.processIntrospectionResponse(op.as, rp.client, await oauth.introspectionRequest(op.as, rp.client, rp.auth, tokens.access_token, insecure))).active
    return { rp, browser, tokens, active }
  }

  it('the account page lists an app the person allowed, and removing its access ends its tokens and records both events', async () => {
    const { rp, browser, active } = await signedInApp('Photo printer')
    const listed = (await (await browser.fetch('/api/auth/apps')).json()) as { data: { apps: Array<{ clientId: string; name: string; scopes: string[] }> } }
    expect(listed.data.apps).toEqual([expect.objectContaining({ clientId: rp.client.client_id, name: 'Photo printer', scopes: expect.arrayContaining(['openid', 'email']) })])
    expect(await active()).toBe(true)
    const revoked = await browser.post('/api/auth/apps/revoke', { clientId: rp.client.client_id })
    expect(revoked.status).toBe(200)
    expect(await active()).toBe(false)
    const again = await browser.post('/api/auth/apps/revoke', { clientId: rp.client.client_id })
    expect(again.status).toBe(404)
    const listedAfter = (await (await browser.fetch('/api/auth/apps')).json()) as { data: { apps: unknown[] } }
    expect(listedAfter.data.apps).toEqual([])
    const events = (await (await browser.fetch('/api/auth/security-events')).json()) as { data: { events: Array<{ type: string }> } }
    const types = events.data.events.map((e) => e.type)
    expect(types).toContain('oidc_app_authorized')
    expect(types).toContain('oidc_access_revoked')
  })

  it('changing the password ends the grants of every app the account signed in to', async () => {
    const { browser, active } = await signedInApp('Calendar')
    expect(await active()).toBe(true)
    const changed = await browser.post('/api/auth/change-password', { currentPassword: PASSWORD, password: `${PASSWORD} changed`, confirmedPassword: `${PASSWORD} changed` })
    expect(changed.status, await changed.clone().text()).toBe(200)
    expect(await active()).toBe(false)
  })

  it('signing out everywhere else ends the apps\' grants too', async () => {
    const { browser, active } = await signedInApp('Notes')
    expect(await active()).toBe(true)
    const res = await browser.post('/api/auth/sessions/revoke-others')
    expect(res.status, await res.clone().text()).toBe(200)
    expect(await active()).toBe(false)
  })
})

describe('RFC 8414 discovery for OAuth-only clients', () => {
  it('serves the authorization server metadata at /.well-known/oauth-authorization-server/oidc with the same issuer', async () => {
    const issuer = new URL(`${op.url}/oidc`)
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
    expect(as.issuer).toBe(issuer.href)
    expect(as.token_endpoint).toBe(`${op.url}/oidc/token`)
  })
})

describe('introspection answers alike on its one-statement path and the provider\'s own', () => {
  // token_type_hint=refresh_token sends the request down the provider's own path
  // (iam/fast/introspection.ts answers only what it can answer exactly as it would)
  const introspect = async (rp: { client: oauth.Client; secret: string | null }, token: string, hint?: string) => {
    const res = await fetch(op.as.introspection_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${rp.client.client_id}:${rp.secret}`).toString('base64')}` },
      body: new URLSearchParams({ token, ...(hint ? { token_type_hint: hint } : {}) }),
    })
    expect(res.headers.get('cache-control')).toBe('no-store')
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }

  it('for a person\'s access token asked by its client, active and after revocation, and by another client, inactive', async () => {
    const app = await op.register({ name: 'Team app', firstParty: true })
    const other = await op.register({ name: 'Orders worker', grants: ['client_credentials'], scope: 'openid' })
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url, verifier, state, nonce } = await authorizationUrl(op, app)
    const walk = await walkAuthorization(browser, url, app.redirectUri)
    const tokens = await redeem(op, app, codeParams(op, app, walk.callback!, state), verifier, nonce)
    const fast = await introspect(app, tokens.access_token)
    expect(fast.body).toMatchObject({ active: true, client_id: app.client.client_id, token_type: 'Bearer', sub: expect.any(String) })
    expect(fast).toEqual(await introspect(app, tokens.access_token, 'refresh_token'))
    // not its token, and it is no resource server the token is for (tests/gateway/introspection.security.test.ts)
    const refused = await introspect(other, tokens.access_token)
    expect(refused).toEqual({ status: 200, body: { active: false } })
    expect(await introspect(other, tokens.access_token, 'refresh_token')).toEqual(refused)
    await oauth.processRevocationResponse(await oauth.revocationRequest(op.as, app.client, app.auth, tokens.access_token, insecure))
    expect((await introspect(app, tokens.access_token)).body).toEqual({ active: false })
  })

  it('for a client-credentials token, and refuses a wrong client secret with the provider\'s error', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'orders:read' })
    const tokens = await oauth.processClientCredentialsResponse(op.as, rp.client, await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, new URLSearchParams({ scope: 'orders:read' }), insecure))
    const fast = await introspect(rp, tokens.access_token)
    expect(fast.body).toMatchObject({ active: true, scope: 'orders:read' })
    expect(fast).toEqual(await introspect(rp, tokens.access_token, 'refresh_token'))
    const wrong = await introspect({ ...rp, secret: `${rp.secret}x` }, tokens.access_token)
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } })
    expect((await introspect(rp, 'not-a-token')).body).toEqual({ active: false })
  })
})

// server/utils/direct-lane.ts: the machine endpoints skip the page machinery, never the frame
describe('the provider\'s machine endpoints on the gateway\'s direct lane', () => {
  it('answers with the page path\'s security headers, echoes a sane request id and is counted under the page path\'s route template', async () => {
    const before = await scrapeMetrics(op.url, LOOPBACK_SCRAPER)
    const direct = await fetch(`${op.url}/oidc/.well-known/openid-configuration`, { headers: { 'x-request-id': 'direct-hop-1' } })
    // the same document through a Nitro route of its own (server/routes/.well-known/oauth-authorization-server/oidc.get.ts)
    const paged = await fetch(`${op.url}/.well-known/oauth-authorization-server/oidc`)
    expect(direct.status).toBe(200)
    expect(paged.status).toBe(200)
    for (const name of FRAME_HEADERS) expect(direct.headers.get(name), name).toBe(paged.headers.get(name))
    expect(direct.headers.get('x-request-id')).toBe('direct-hop-1')
    expect((await direct.json()).issuer).toBe((await paged.json()).issuer)
    // a sign-in request is a page's: it takes the page path (400 here: no client named)
    expect((await fetch(`${op.url}/oidc/auth`)).status).toBe(400)
    const after = await scrapeMetrics(op.url, LOOPBACK_SCRAPER)
    const route = '/oidc/**:path'
    expect(moved(before, after, 'gateway_http_requests_total', { method: 'GET', route, status: '400' })).toBe(1)
    expect(moved(before, after, 'gateway_http_requests_total', { method: 'GET', route, status: '200' })).toBe(1)
  })

  it('sets no page cookie on a machine endpoint, where the page path gives a browser with a session its CSRF token', async () => {
    const browserish = { cookie: 'session=not-checked-here', 'sec-fetch-dest': 'document', accept: 'text/html' }
    const direct = await fetch(`${op.url}/oidc/jwks`, { headers: browserish })
    expect(direct.status).toBe(200)
    expect(direct.headers.getSetCookie()).toEqual([])
    const paged = await fetch(`${op.url}/.well-known/oauth-authorization-server/oidc`, { headers: browserish })
    expect(paged.headers.getSetCookie().some((line) => line.startsWith('__Host-csrf='))).toBe(true)
  })

  it('refuses a body over the provider\'s bound with 413 before it is read', async () => {
    const big = await fetch(`${op.url}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&pad=${'a'.repeat(OIDC_BODY_LIMIT_BYTES)}`,
    })
    expect(big.status).toBe(413)
    expect(big.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await big.json()).toEqual({ ok: false, error: 'Payload too large', code: 'payload_too_large' })
  })
})
