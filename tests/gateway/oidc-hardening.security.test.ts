/**
 * The OpenID Provider's hardening through the front door (gateway + IAM):
 * - device authorization (RFC 8628): user code entry is rate limited (section 5.1: a user code is
 *   short enough to guess), and a client holds a bounded number of live device codes;
 * - PKCE is required of every client, confidential ones included (RFC 9700 section 2.1.1);
 * - a client authenticates the way it registered (`token_endpoint_auth_method`): a
 *   client_secret_basic client sending its secret in the body is refused, and the other way round,
 *   at the token, introspection (both of its paths) and revocation endpoints.
 */
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorizationUrl, Browser, formAction, formFields, insecure, signUp, startOpStack, walkAuthorization, type OpStack, type RegisteredClient } from '../helpers/oidc-op'

/** user code submissions a browser (and its address) may make in the window */
const USER_CODE_POINTS = 4
const MAX_LIVE_DEVICE_CODES = 3

let op: OpStack

beforeAll(async () => {
  op = await startOpStack({
    iamConfig: () => ({
      rate_limiters: { deviceUserCode: { points: USER_CODE_POINTS, duration: 600, blockDuration: 900 } },
      oidc: { deviceFlow: { maxLiveCodesPerClient: MAX_LIVE_DEVICE_CODES } },
    }),
  })
})
afterAll(() => op?.stop())

async function signedInBrowser(): Promise<Browser> {
  const browser = new Browser(op.url)
  await signUp(browser)
  return browser
}

async function startDevice(rp: RegisteredClient) {
  return oauth.processDeviceAuthorizationResponse(op.as, rp.client, await oauth.deviceAuthorizationRequest(op.as, rp.client, rp.auth, { scope: 'openid' }, insecure))
}

/** The device endpoint's error, or 'succeeded'. */
async function deviceError(rp: RegisteredClient): Promise<{ error?: string; description?: string } | 'succeeded'> {
  try {
    await startDevice(rp)
    return 'succeeded'
  } catch (error) {
    const e = error as { error?: string; error_description?: string }
    return { error: e.error, description: e.error_description }
  }
}

describe('device flow: user code entry and live device codes are bounded (RFC 8628 section 5.1)', () => {
  it('a client holds at most the configured number of live device codes; the next request is refused with a description, and other clients are not affected', async () => {
    const rp = await op.register({ name: 'TV app', public: true, grants: ['device_code'] })
    for (let i = 0; i < MAX_LIVE_DEVICE_CODES; i++) expect(await deviceError(rp)).toBe('succeeded')
    const refused = await deviceError(rp)
    expect(refused).toMatchObject({ error: 'slow_down' })
    expect((refused as { description?: string }).description).toMatch(/device codes/)
    const other = await op.register({ name: 'Other TV app', public: true, grants: ['device_code'] })
    expect(await deviceError(other)).toBe('succeeded')
  })

  it('after the allowed number of wrong codes, the right code is refused too, with the page saying to wait (not JSON), for a new browser from the same address as well', async () => {
    const rp = await op.register({ name: 'Console', public: true, grants: ['device_code'] })
    const device = await startDevice(rp)
    const browser = await signedInBrowser()
    let html = await (await browser.fetch('/oidc/device')).text()
    for (let i = 0; i < USER_CODE_POINTS; i++) {
      const res = await browser.fetch(formAction(html, 'op.deviceInputForm'), { form: { ...formFields(html, 'op.deviceInputForm'), user_code: `BCDF-GHJ${'KLMN'[i]}` } })
      html = await res.text()
      expect(html).toContain('That code is not valid or has expired')
    }
    const right = await browser.fetch(formAction(html, 'op.deviceInputForm'), { form: { ...formFields(html, 'op.deviceInputForm'), user_code: device.user_code } })
    expect(right.status).toBe(429)
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(right.headers.get('content-type')).toMatch(/text\/html/)
    const page = await right.text()
    expect(page).toContain('Too many attempts')
    expect(page).not.toContain('Confirm the device')

    const fresh = new Browser(op.url)
    const freshHtml = await (await fresh.fetch('/oidc/device')).text()
    const again = await fresh.fetch(formAction(freshHtml, 'op.deviceInputForm'), { form: { ...formFields(freshHtml, 'op.deviceInputForm'), user_code: device.user_code } })
    expect(again.status).toBe(429)
    // the device was never approved
    await expect(
      oauth.processDeviceCodeResponse(op.as, rp.client, await oauth.deviceCodeGrantRequest(op.as, rp.client, rp.auth, device.device_code, insecure)),
    ).rejects.toMatchObject({ error: 'authorization_pending' })
  })
})

describe('PKCE is required of every client (RFC 9700 section 2.1.1)', () => {
  it('a confidential client sending no code_challenge gets invalid_request back, not a code', async () => {
    const rp = await op.register({ name: 'Server-side web app' })
    const { url, state } = await authorizationUrl(op, rp)
    const withoutPkce = new URL(url)
    withoutPkce.searchParams.delete('code_challenge')
    withoutPkce.searchParams.delete('code_challenge_method')
    const walk = await walkAuthorization(await signedInBrowser(), withoutPkce.href, rp.redirectUri)
    expect(walk.callback?.searchParams.get('code') ?? null).toBeNull()
    expect(walk.callback?.searchParams.get('error')).toBe('invalid_request')
    expect(walk.callback?.searchParams.get('error_description')).toMatch(/PKCE/)
    expect(walk.callback?.searchParams.get('state')).toBe(state)
  })
})

describe('a client authenticates only by its registered method (token_endpoint_auth_method)', () => {
  type Presented = 'basic' | 'post'
  let basicClient: RegisteredClient
  let postClient: RegisteredClient

  beforeAll(async () => {
    basicClient = await op.register({ name: 'Basic worker', grants: ['client_credentials'] })
    postClient = await op.register({ name: 'Post worker', grants: ['client_credentials'], authMethod: 'client_secret_post' })
  })

  /** A form POST to `endpoint` as `rp`, its secret sent the `presented` way. */
  async function post(endpoint: string, rp: RegisteredClient, presented: Presented, params: Record<string, string>) {
    const form = new URLSearchParams(params)
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
    if (presented === 'post') {
      form.set('client_id', rp.client.client_id)
      form.set('client_secret', rp.secret!)
    } else {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(rp.client.client_id)}:${encodeURIComponent(rp.secret!)}`).toString('base64')}`
    }
    const res = await fetch(endpoint, { method: 'POST', headers, body: form })
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null }
  }

  const cases: Array<[string, () => RegisteredClient, Presented, Presented]> = [
    ['client_secret_basic', () => basicClient, 'basic', 'post'],
    ['client_secret_post', () => postClient, 'post', 'basic'],
  ]

  for (const [registered, client, right, wrong] of cases) {
    it(`a ${registered} client is refused at the token endpoint when it sends its secret the other way, and served the registered way`, async () => {
      const rp = client()
      expect(await post(op.as.token_endpoint!, rp, wrong, { grant_type: 'client_credentials' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } })
      const served = await post(op.as.token_endpoint!, rp, right, { grant_type: 'client_credentials' })
      expect(served.status).toBe(200)
      expect(served.body?.access_token).toBeTruthy()
    })

    it(`a ${registered} client is refused at the introspection endpoint (both paths) and the revocation endpoint when it sends its secret the other way`, async () => {
      const rp = client()
      const token = (await post(op.as.token_endpoint!, rp, right, { grant_type: 'client_credentials' })).body!.access_token as string
      // the one-statement path takes access_token hints, the provider's own path the rest
      for (const hint of ['access_token', 'refresh_token']) {
        expect({ hint, answer: await post(op.as.introspection_endpoint!, rp, wrong, { token, token_type_hint: hint }) }).toMatchObject({ hint, answer: { status: 401, body: { error: 'invalid_client' } } })
        expect({ hint, answer: await post(op.as.introspection_endpoint!, rp, right, { token, token_type_hint: hint }) }).toMatchObject({ hint, answer: { status: 200, body: { active: true } } })
      }
      expect(await post(op.as.revocation_endpoint!, rp, wrong, { token })).toMatchObject({ status: 401, body: { error: 'invalid_client' } })
      expect((await post(op.as.introspection_endpoint!, rp, right, { token })).body).toMatchObject({ active: true })
      expect((await post(op.as.revocation_endpoint!, rp, right, { token })).status).toBe(200)
      expect((await post(op.as.introspection_endpoint!, rp, right, { token })).body).toEqual({ active: false })
    })
  }
})
