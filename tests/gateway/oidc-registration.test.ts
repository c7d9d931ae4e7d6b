/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) through the gateway's
 * /oidc, with `oidc.registration` enabled behind an initial access token: a registration without
 * the token is refused; with it the client gets its id, a registration access token and a
 * `registration_client_uri` on the gateway's origin, signs a person in (with the consent page,
 * never as a first-party app), reads, updates and deletes its registration. What a client may not
 * make itself (client credentials, first party) is refused before anything is stored.
 */
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refusedRegistration } from '../../iam/features/oidc/registration-policy'
import { authorizationUrl, Browser, codeFlow, signUp, startOpStack, walkAuthorization, type OpStack, type RegisteredClient } from '../helpers/oidc-op'

const INITIAL_ACCESS_TOKEN = 'registration-token-for-tests-0123456789abcdef'
const REDIRECT = 'http://127.0.0.1:9/registered-cb'
let op: OpStack

beforeAll(async () => {
  op = await startOpStack({
    iamConfig: () => ({ oidc: { registration: { enabled: true } }, secrets: { oidcRegistrationToken: INITIAL_ACCESS_TOKEN } }),
  })
}, 240_000)
afterAll(() => op?.stop())

const register = (body: Record<string, unknown>, token?: string) =>
  fetch(op.as.registration_endpoint!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })

const agent = { client_name: 'Registered Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }

describe('dynamic client registration behind an initial access token', () => {
  it('is announced in discovery on the gateway origin', () => {
    expect(op.as.registration_endpoint).toBe(`${op.issuer}/reg`)
  })

  it('refuses a registration without the initial access token, or with another one', async () => {
    const none = await register(agent)
    expect(none.status).toBe(401)
    expect(await none.json()).toMatchObject({ error: 'invalid_token' })
    const wrong = await register(agent, `${INITIAL_ACCESS_TOKEN}x`)
    expect(wrong.status).toBe(401)
  })

  it('registers a client that then signs a person in after the consent page, and manages its registration with its registration access token', async () => {
    const created = await register(agent, INITIAL_ACCESS_TOKEN)
    expect(created.status).toBe(201)
    const client = (await created.json()) as { client_id: string; registration_access_token: string; registration_client_uri: string; client_secret?: string }
    expect(client.registration_client_uri).toBe(`${op.issuer}/reg/${client.client_id}`)
    expect(client.client_secret).toBeUndefined()

    // it is a third-party app: the person meets the consent page
    const rp: RegisteredClient = { client: { client_id: client.client_id }, auth: oauth.None(), secret: null, redirectUri: REDIRECT }
    const browser = new Browser(op.url)
    await signUp(browser)
    const { url } = await authorizationUrl(op, rp)
    const walk = await walkAuthorization(browser, url, REDIRECT, { consent: 'stop' })
    expect(walk.consentUid, `stopped at ${walk.stopped?.status}`).toBeDefined()
    const tokens = await codeFlow(op, rp, browser)
    expect(tokens.access_token).toBeTruthy()

    // RFC 7592: read, update (the token rotates), delete
    const read = await fetch(client.registration_client_uri, { headers: { authorization: `Bearer ${client.registration_access_token}` } })
    expect(read.status).toBe(200)
    expect(await read.json()).toMatchObject({ client_id: client.client_id, client_name: 'Registered Agent' })
    const updated = await fetch(client.registration_client_uri, {
      method: 'PUT',
      headers: { authorization: `Bearer ${client.registration_access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...agent, client_id: client.client_id, client_name: 'Renamed Agent' }),
    })
    expect(updated.status).toBe(200)
    const renamed = (await updated.json()) as { client_name: string; registration_access_token: string }
    expect(renamed.client_name).toBe('Renamed Agent')
    expect(renamed.registration_access_token).not.toBe(client.registration_access_token)
    expect((await fetch(client.registration_client_uri, { headers: { authorization: `Bearer ${client.registration_access_token}` } })).status).toBe(401)

    const deleted = await fetch(client.registration_client_uri, { method: 'DELETE', headers: { authorization: `Bearer ${renamed.registration_access_token}` } })
    expect(deleted.status).toBe(204)
    // the deleted client is unknown to the token endpoint
    const gone = await fetch(op.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: client.client_id, redirect_uri: REDIRECT, code_verifier: 'v'.repeat(43) }),
    })
    expect(await gone.json()).toMatchObject({ error: 'invalid_client' })
  })

  it.each([
    ['client credentials (a token as itself, without any person)', { ...agent, grant_types: ['authorization_code', 'client_credentials'], token_endpoint_auth_method: 'client_secret_basic' }, 'client_credentials'],
    ['a first-party app (no consent page)', { ...agent, first_party: true }, 'first_party'],
  ])('refuses a client that registers %s', async (_label, body, named) => {
    const res = await register(body, INITIAL_ACCESS_TOKEN)
    expect(res.status).toBe(400)
    const answer = (await res.json()) as { error: string; error_description: string }
    expect(answer.error).toBe('invalid_client_metadata')
    expect(answer.error_description).toContain(named)
  })

  it('refuses registrations past the per-address budget (rate_limiters.oidcRegistration, 10 an hour) with 429 and Retry-After, before the provider stores anything', async () => {
    let refused: Response | undefined
    // refused by the policy, so none of these stores a client; each still spends a point
    for (let i = 0; i < 11 && !refused; i++) {
      const res = await register({ ...agent, first_party: true }, INITIAL_ACCESS_TOKEN)
      if (res.status === 429) refused = res
      else expect(res.status).toBe(400)
    }
    expect(refused, 'no 429 within 11 registrations').toBeDefined()
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await refused!.json()).toMatchObject({ error: 'too_many_requests' })
    // a well-formed registration from the same address is refused too, and creates no client
    const blocked = await register(agent, INITIAL_ACCESS_TOKEN)
    expect(blocked.status).toBe(429)
  })
})

describe('the registration policy', () => {
  it('lets a client register grants that act for a person, and nothing that acts as itself or skips consent', () => {
    expect(refusedRegistration({ grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] })).toBeNull()
    expect(refusedRegistration({})).toBeNull()
    expect(refusedRegistration({ grant_types: ['authorization_code', 'client_credentials'] })).toMatch(/client_credentials/)
    expect(refusedRegistration({ grant_types: ['implicit'] })).toMatch(/implicit/)
    expect(refusedRegistration({ first_party: true })).toMatch(/first_party/)
    expect(refusedRegistration({ first_party: false })).toBeNull()
  })
})
