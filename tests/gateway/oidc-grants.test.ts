/**
 * The OpenID Provider's other grants end to end, driven by a real relying-party library
 * (oauth4webapi) through the gateway's /oidc forwarding: refresh tokens (rotation, reuse
 * detection, one winner of two concurrent redemptions), device authorization (RFC 8628), pushed
 * authorization requests (RFC 9126), and resource indicators (RFC 8707) with JWT access tokens
 * (RFC 9068) verified against the published keys.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PASSWORD } from '../e2e/auth-stack'
import { moved, scrapeMetrics } from '../helpers/prometheus'
import {
  API,
  attributes,
  authorizationUrl,
  Browser,
  codeFlow,
  codeParams,
  formAction,
  formFields,
  insecure,
  introspect,
  redeem,
  refresh,
  signUp,
  startOpStack,
  walkAuthorization,
  type OpStack,
  type RegisteredClient,
} from '../helpers/oidc-op'

let op: OpStack

beforeAll(async () => {
  op = await startOpStack()
})
afterAll(() => op?.stop())

/** oidc-provider keeps offline_access only when the request also says prompt=consent (OIDC Core 11). */
const OFFLINE = { scope: 'openid offline_access', prompt: 'consent' }

async function signedInBrowser(): Promise<Browser> {
  const browser = new Browser(op.url)
  await signUp(browser)
  return browser
}

async function refreshError(rp: RegisteredClient, token: string): Promise<unknown> {
  try {
    await refresh(op, rp, token)
  } catch (error) {
    return (error as { error?: string }).error
  }
  return 'succeeded'
}

describe('refresh tokens', () => {
  it('a public client with offline_access gets a refresh token, every refresh rotates it, and reusing an old one is refused and ends the whole grant', async () => {
    const rp = await op.register({ name: 'Mobile app', public: true, firstParty: true })
    const first = await codeFlow(op, rp, await signedInBrowser(), OFFLINE)
    expect(first.refresh_token).toBeTruthy()

    const second = await refresh(op, rp, first.refresh_token!)
    expect(second.refresh_token).toBeTruthy()
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect((await introspect(op, rp, second.access_token)).active).toBe(true)

    // the old token again: a replay (RFC 9700 section 4.14.2)
    expect(await refreshError(rp, first.refresh_token!)).toBe('invalid_grant')
    expect(await refreshError(rp, second.refresh_token!)).toBe('invalid_grant')
    expect((await introspect(op, rp, second.access_token)).active).toBe(false)
  })

  // every session of the account ending ends its provider grants in the same transaction: the
  // sessions feature runs the listener the oidc feature registered (iam/features/sessions/session-hooks.ts)
  it('signing out everywhere else ends the refresh token the provider issued: its next refresh is invalid_grant', async () => {
    const rp = await op.register({ name: 'Offline notes', firstParty: true })
    const browser = await signedInBrowser()
    const tokens = await codeFlow(op, rp, browser, OFFLINE)
    const refreshed = await refresh(op, rp, tokens.refresh_token!)
    expect(refreshed.refresh_token).toBeTruthy()
    const res = await browser.post('/api/auth/sessions/revoke-others')
    expect(res.status, await res.clone().text()).toBe(200)
    expect(await refreshError(rp, refreshed.refresh_token!)).toBe('invalid_grant')
  })

  it('changing the password ends the refresh token the provider issued: its next refresh is invalid_grant', async () => {
    const rp = await op.register({ name: 'Offline calendar', firstParty: true })
    const browser = await signedInBrowser()
    const tokens = await codeFlow(op, rp, browser, OFFLINE)
    const refreshed = await refresh(op, rp, tokens.refresh_token!)
    expect(refreshed.refresh_token).toBeTruthy()
    const changed = await browser.post('/api/auth/change-password', { currentPassword: PASSWORD, password: `${PASSWORD} changed`, confirmedPassword: `${PASSWORD} changed` })
    expect(changed.status, await changed.clone().text()).toBe(200)
    expect(await refreshError(rp, refreshed.refresh_token!)).toBe('invalid_grant')
  })

  it('a request without prompt=consent gets no refresh token even when it asks for offline_access', async () => {
    const rp = await op.register({ name: 'Mobile app', public: true, firstParty: true })
    const tokens = await codeFlow(op, rp, await signedInBrowser(), { scope: 'openid offline_access' })
    expect(tokens.refresh_token).toBeUndefined()
  })

  it('a confidential client refreshes with its secret, and a refresh token is bound to the client it was issued to', async () => {
    const rp = await op.register({ name: 'Web app', firstParty: true })
    const tokens = await codeFlow(op, rp, await signedInBrowser(), OFFLINE)
    expect(tokens.refresh_token).toBeTruthy()
    const refreshed = await refresh(op, rp, tokens.refresh_token!)
    expect(refreshed.access_token).toBeTruthy()
    expect((await introspect(op, rp, refreshed.access_token)).active).toBe(true)

    const other = await op.register({ name: 'Other web app', firstParty: true })
    expect(await refreshError(other, refreshed.refresh_token ?? tokens.refresh_token!)).toBe('invalid_grant')
  })

  it("a confidential client's refresh reads the client, the token, its grant and its account in one statement and writes the access token: one read and one write", async () => {
    const rp = await op.register({ name: 'Counted web app', firstParty: true })
    const tokens = await codeFlow(op, rp, await signedInBrowser(), OFFLINE)
    await refresh(op, rp, tokens.refresh_token!) // the first refresh may still sweep or warm what the flow left
    const before = await scrapeMetrics(op.iam.url)
    const N = 5
    for (let i = 0; i < N; i++) expect((await refresh(op, rp, tokens.refresh_token!)).access_token).toBeTruthy()
    const after = await scrapeMetrics(op.iam.url)
    const of = (kind: string) => moved(before, after, 'iam_db_statements_total', { kind })
    // the two-statement path (iam/fast/refresh-token.ts): a token not due for rotation, asked for
    // with the client's secret; through the provider's endpoint it is two reads, the token's
    // statement reading its grant and account ahead (features/oidc/request-memo.ts)
    expect(of('read')).toBe(N)
    expect(of('write')).toBe(N)
  })

  it('of two concurrent redemptions of one refresh token exactly one gets tokens', async () => {
    const rp = await op.register({ name: 'Mobile app', public: true, firstParty: true })
    const tokens = await codeFlow(op, rp, await signedInBrowser(), OFFLINE)
    const outcomes = await Promise.all([0, 1].map(() => refreshError(rp, tokens.refresh_token!)))
    expect(outcomes.filter((o) => o === 'succeeded')).toHaveLength(1)
    expect(outcomes.filter((o) => o === 'invalid_grant')).toHaveLength(1)
  })
})

describe('device authorization (RFC 8628)', () => {
  async function startDevice(rp: RegisteredClient, scope = 'openid') {
    return oauth.processDeviceAuthorizationResponse(op.as, rp.client, await oauth.deviceAuthorizationRequest(op.as, rp.client, rp.auth, { scope }, insecure))
  }

  async function poll(rp: RegisteredClient, deviceCode: string) {
    return oauth.processDeviceCodeResponse(op.as, rp.client, await oauth.deviceCodeGrantRequest(op.as, rp.client, rp.auth, deviceCode, insecure))
  }

  it('a person enters the device code on the verification page while signed in, allows it, and the polling device gets tokens', async () => {
    const rp = await op.register({ name: 'TV app', public: true, grants: ['device_code', 'refresh_token'] })
    const device = await startDevice(rp)
    expect(device.verification_uri).toBe(`${op.url}/oidc/device`)
    await expect(poll(rp, device.device_code)).rejects.toMatchObject({ error: 'authorization_pending' })

    const browser = await signedInBrowser()
    const page = await browser.fetch(device.verification_uri)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Connect a device')
    const fields = formFields(html, 'op.deviceInputForm')
    expect(fields.xsrf).toBeTruthy()
    expect(fields).toHaveProperty('user_code')

    const confirm = await browser.fetch(formAction(html, 'op.deviceInputForm'), { form: { ...fields, user_code: device.user_code } })
    expect(confirm.status).toBe(200)
    const confirmHtml = await confirm.text()
    expect(confirmHtml).toContain('Confirm the device')
    expect(confirmHtml).toContain('TV app')
    const confirmFields = formFields(confirmHtml, 'op.deviceConfirmForm')
    expect(confirmFields.confirm).toBe('yes')

    const started = await browser.fetch(formAction(confirmHtml, 'op.deviceConfirmForm'), { form: confirmFields })
    expect(started.status).toBe(303)
    const walk = await walkAuthorization(browser, new URL(started.headers.get('location')!, op.url).href, 'urn:never')
    expect(walk.stopped?.status).toBe(200)
    expect(await walk.stopped!.text()).toContain('Device connected')

    const tokens = await poll(rp, device.device_code)
    expect(tokens.access_token).toBeTruthy()
    const claims = oauth.getValidatedIdTokenClaims(tokens)!
    const info = await oauth.processUserInfoResponse(op.as, rp.client, claims.sub, await oauth.userInfoRequest(op.as, rp.client, tokens.access_token, insecure))
    expect(info.sub).toBe(claims.sub)
    // the device code is spent
    await expect(poll(rp, device.device_code)).rejects.toMatchObject({ error: 'invalid_grant' })
  })

  it('the code field of the verification page is the one its label names, and the page has no inline script its CSP would refuse', async () => {
    const html = await (await new Browser(op.url).fetch('/oidc/device')).text()
    expect(html).not.toMatch(/\son[a-z]+="/)
    const label = /<label\b[^>]*>/.exec(html)
    const labelled = attributes(label![0]).for!
    const input = (html.match(/<input\b[^>]*>/g) ?? []).map(attributes).find((a) => a.id === labelled)
    expect(input?.name).toBe('user_code')
  })

  it('a wrong code shows the page again with the error in words, not a server error', async () => {
    const browser = await signedInBrowser()
    const html = await (await browser.fetch('/oidc/device')).text()
    const res = await browser.fetch(formAction(html, 'op.deviceInputForm'), { form: { ...formFields(html, 'op.deviceInputForm'), user_code: 'BCDF-GHJK' } })
    expect([200, 400]).toContain(res.status)
    expect(res.headers.get('content-type')).toMatch(/text\/html/)
    const again = await res.text()
    expect(again).toContain('That code is not valid or has expired')
    expect(formFields(again, 'op.deviceInputForm').xsrf).toBeTruthy()
  })

  it('cancelling on the confirm page gives the polling device access_denied', async () => {
    const rp = await op.register({ name: 'TV app', public: true, grants: ['device_code'] })
    const device = await startDevice(rp)
    const browser = await signedInBrowser()
    const html = await (await browser.fetch(device.verification_uri)).text()
    const confirmHtml = await (await browser.fetch(formAction(html, 'op.deviceInputForm'), { form: { ...formFields(html, 'op.deviceInputForm'), user_code: device.user_code } })).text()
    const cancelled = await browser.fetch(formAction(confirmHtml, 'op.deviceConfirmForm'), { form: { ...formFields(confirmHtml, 'op.deviceConfirmForm'), abort: 'yes' } })
    expect(cancelled.status).toBe(200)
    await expect(poll(rp, device.device_code)).rejects.toMatchObject({ error: 'access_denied' })
  })
})

describe('pushed authorization requests (RFC 9126)', () => {
  /** Pushes `params` as `rp` and gives the authorization URL that carries only the request_uri and client_id. */
  async function pushAuthorization(rp: RegisteredClient, params: Record<string, string>): Promise<{ requestUri: string; url: string }> {
    const pushed = await oauth.processPushedAuthorizationResponse(op.as, rp.client, await oauth.pushedAuthorizationRequest(op.as, rp.client, rp.auth, params, insecure))
    const url = new URL(op.as.authorization_endpoint!)
    url.search = new URLSearchParams({ client_id: rp.client.client_id, request_uri: pushed.request_uri }).toString()
    return { requestUri: pushed.request_uri, url: url.href }
  }

  it('a client pushes its request, sends the browser with only request_uri and client_id, and the code flow completes', async () => {
    const rp = await op.register({ name: 'Web app', firstParty: true })
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const nonce = oauth.generateRandomNonce()
    const pushed = await pushAuthorization(rp, {
      redirect_uri: rp.redirectUri,
      response_type: 'code',
      scope: 'openid email',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })
    expect(pushed.requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:/)
    const walk = await walkAuthorization(await signedInBrowser(), pushed.url, rp.redirectUri)
    const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
    expect(oauth.getValidatedIdTokenClaims(tokens)!.nonce).toBe(nonce)
  })

  it('a pushed request is used once', async () => {
    const rp = await op.register({ name: 'Web app', firstParty: true })
    const verifier = oauth.generateRandomCodeVerifier()
    const { url } = await pushAuthorization(rp, {
      redirect_uri: rp.redirectUri,
      response_type: 'code',
      scope: 'openid',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })
    const browser = await signedInBrowser()
    expect((await walkAuthorization(browser, url, rp.redirectUri)).callback?.searchParams.get('code')).toBeTruthy()
    const again = await walkAuthorization(browser, url, rp.redirectUri)
    expect(again.callback?.searchParams.get('code') ?? null).toBeNull()
  })
})

describe('resource indicators (RFC 8707) and JWT access tokens (RFC 9068)', () => {
  const jwks = () => createRemoteJWKSet(new URL(op.as.jwks_uri!))

  it('a code flow for the API issues a JWT access token for it, with the API scope the person allowed, verified against the published keys', async () => {
    const rp = await op.register({ name: 'Shop', scope: 'openid orders:read orders:write' })
    const browser = await signedInBrowser()
    const { url, verifier, state, nonce } = await authorizationUrl(op, rp, { scope: 'openid orders:read', resource: API })
    const stopped = await walkAuthorization(browser, url, rp.redirectUri, { consent: 'stop' })
    const details = (await (await browser.fetch(`/interaction/${stopped.consentUid}/details`)).json()) as { data: { resources: Array<{ indicator: string; scopes: string[]; descriptions: Record<string, Record<string, string>> }> } }
    expect(details.data.resources).toEqual([{ indicator: API, scopes: ['orders:read'], descriptions: {} }])
    const walk = await walkAuthorization(browser, `/interaction/${stopped.consentUid}`, rp.redirectUri)
    const tokens = await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)

    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt')
    const { payload } = await jwtVerify(tokens.access_token, jwks(), { issuer: op.issuer, audience: API, typ: 'at+jwt' })
    expect(String(payload.scope).split(' ')).toContain('orders:read')
    expect(String(payload.scope).split(' ')).not.toContain('orders:write')
    expect(payload.client_id).toBe(rp.client.client_id)
    expect(payload.sub).toBe(oauth.getValidatedIdTokenClaims(tokens)!.sub)
  })

  it('a refresh for the API again gets a JWT access token for it', async () => {
    const rp = await op.register({ name: 'Shop app', public: true, firstParty: true, scope: 'openid offline_access orders:read' })
    const tokens = await codeFlow(op, rp, await signedInBrowser(), { scope: 'openid offline_access orders:read', prompt: 'consent', resource: API })
    expect(tokens.refresh_token).toBeTruthy()
    const refreshed = await refresh(op, rp, tokens.refresh_token!)
    const { payload } = await jwtVerify(refreshed.access_token, jwks(), { issuer: op.issuer, audience: API, typ: 'at+jwt' })
    expect(payload.scope).toBe('orders:read')
  })

  it('client credentials with a resource get a JWT access token for that API', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'orders:read' })
    const tokens = await oauth.processClientCredentialsResponse(
      op.as,
      rp.client,
      await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, { resource: API, scope: 'orders:read' }, insecure),
    )
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks(), { issuer: op.issuer, audience: API, typ: 'at+jwt' })
    expect(protectedHeader.typ).toBe('at+jwt')
    expect(payload.scope).toBe('orders:read')
    expect(payload.client_id).toBe(rp.client.client_id)
  })

  it('an indicator the provider does not know is invalid_target', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'orders:read' })
    await expect(
      oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, { resource: 'https://unknown.example.test/', scope: 'orders:read' }, insecure).then((res) =>
        oauth.processClientCredentialsResponse(op.as, rp.client, res),
      ),
    ).rejects.toMatchObject({ error: 'invalid_target' })
  })

  it('an authorization request for an unknown indicator sends the client invalid_target', async () => {
    const rp = await op.register({ name: 'Shop', scope: 'openid orders:read' })
    const { url, state } = await authorizationUrl(op, rp, { scope: 'openid orders:read', resource: 'https://unknown.example.test/' })
    const walk = await walkAuthorization(await signedInBrowser(), url, rp.redirectUri)
    expect(walk.callback!.searchParams.get('error')).toBe('invalid_target')
    expect(walk.callback!.searchParams.get('state')).toBe(state)
  })
})
