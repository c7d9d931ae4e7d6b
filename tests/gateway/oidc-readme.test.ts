/**
 * What docs/oidc-provider.md, "Sign in to your other apps", tells programs to do, done as it says: an API
 * verifies a JWT access token with jose against {issuer}/jwks (audience = its resource indicator),
 * and a command-line client registered as `--public --grant device_code --grant refresh_token`
 * signs a person in with the device flow and gets a refresh token.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API, Browser, insecure, signUp, startOpStack, walkAuthorization, type OpStack } from '../helpers/oidc-op'

let op: OpStack

beforeAll(async () => {
  op = await startOpStack()
})
afterAll(() => op?.stop())

/** The action and hidden fields (xsrf among them) of the provider's form on `html`. */
function formOf(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html)
  expect(form, html).toBeTruthy()
  const inputs = [...form![2]!.matchAll(/<input\b([^>]*)>/g)].map((m) => m[1]!)
  const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1]
  const fields = Object.fromEntries(inputs.filter((tag) => attr(tag, 'type') === 'hidden').map((tag) => [attr(tag, 'name')!, attr(tag, 'value') ?? '']))
  expect(fields.xsrf, html).toBeTruthy()
  return { action: form![1]!.replace(/&amp;/g, '&'), fields }
}

describe('an API', () => {
  it('verifies a client credentials JWT access token with jose against {issuer}/jwks, the audience being its resource indicator', async () => {
    const rp = await op.register({ name: 'Worker', grants: ['client_credentials'], scope: 'orders:read' })
    const response = await oauth.clientCredentialsGrantRequest(op.as, rp.client, rp.auth, new URLSearchParams({ resource: API, scope: 'orders:read' }), insecure)
    const tokens = await oauth.processClientCredentialsResponse(op.as, rp.client, response)
    const keys = createRemoteJWKSet(new URL(`${op.issuer}/jwks`))
    const { payload } = await jwtVerify(tokens.access_token, keys, { issuer: op.issuer, audience: API, typ: 'at+jwt' })
    expect(payload).toMatchObject({ sub: rp.client.client_id, client_id: rp.client.client_id, scope: 'orders:read' })
    await expect(jwtVerify(tokens.access_token, keys, { issuer: op.issuer, audience: 'https://other-api.example.test/' })).rejects.toThrow()
  })
})

describe('a command-line client', () => {
  it('signs a person in with the device flow: the person enters the code on the provider page, the client gets tokens and a refresh token', async () => {
    const rp = await op.register({ name: 'Terminal', public: true, redirectUris: [], grants: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'], scope: 'openid offline_access' })
    const started = await oauth.processDeviceAuthorizationResponse(
      op.as,
      rp.client,
      await oauth.deviceAuthorizationRequest(op.as, rp.client, rp.auth, new URLSearchParams({ scope: 'openid offline_access', prompt: 'consent' }), insecure),
    )
    expect(started.verification_uri).toBe(`${op.issuer}/device`)

    const browser = new Browser(op.url)
    await signUp(browser)
    const page = await (await browser.fetch(started.verification_uri)).text()
    // the page's label names the code field
    expect(page).toMatch(/<input[^>]*id="user_code"[^>]*type="text"[^>]*name="user_code"|<input[^>]*type="text"[^>]*id="user_code"/)
    const entry = formOf(page)
    const entered = await browser.fetch(entry.action, { form: { ...entry.fields, user_code: started.user_code } })
    expect(entered.status, await entered.clone().text()).toBe(200)
    const confirm = formOf(await entered.text())
    const confirmed = await browser.fetch(confirm.action, { form: confirm.fields })
    const walk = await walkAuthorization(browser, new URL(confirmed.headers.get('location')!, op.url).href, `${op.issuer}/device/callback`)
    expect(walk.stopped?.status).toBe(200)
    expect(await walk.stopped!.text()).toContain('Device connected')

    const tokens = await oauth.processDeviceCodeResponse(op.as, rp.client, await oauth.deviceCodeGrantRequest(op.as, rp.client, rp.auth, started.device_code, insecure))
    expect(tokens.access_token).toBeTruthy()
    expect(tokens.refresh_token).toBeTruthy()
  })
})
