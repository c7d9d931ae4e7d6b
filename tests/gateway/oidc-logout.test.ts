/**
 * Logout at the OpenID Provider end to end: RP-initiated logout (the provider's "Sign out?" page,
 * the confirm post through the gateway, the redirect back to the app, and the gateway's own
 * session ended with it) and back-channel logout (the provider posts a logout token to the apps
 * that took part in the session; here a small HTTP server on loopback, as an app's back end).
 */
import { createServer, type Server } from 'node:http'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitForLog } from '../helpers/logs'
import { Browser, codeFlow, formAction, formFields, introspect, signUp, startOpStack, type OpStack, type RegisteredClient } from '../helpers/oidc-op'

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout'

/** An app's back-channel logout endpoint: keeps every logout_token posted to it. */
let receiver: Server
let receiverUrl: string
const received: Array<{ path: string; contentType: string | undefined; logoutToken: string | null }> = []

let op: OpStack

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], logoutToken: new URLSearchParams(body).get('logout_token') })
      res.writeHead(200, { 'cache-control': 'no-store' }).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const address = receiver.address()
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  // the apps' back ends run on this machine: the provider may call loopback addresses here
  op = await startOpStack({ iamConfig: () => ({ oidc: { allowLoopbackRequests: true } }) })
})
afterAll(async () => {
  await op?.stop()
  await new Promise<void>((resolve) => receiver?.close(() => resolve()))
})

const AFTER_LOGOUT = 'http://127.0.0.1:9/signed-out'

async function session(browser: Browser): Promise<{ authenticated: boolean }> {
  return (await (await browser.fetch('/api/auth/session')).json()) as { authenticated: boolean }
}

/** Opens the provider's end-session endpoint as the app sends the browser there; answers the page. */
async function openEndSession(browser: Browser, rp: RegisteredClient, idToken: string, state: string): Promise<string> {
  const url = new URL(op.as.end_session_endpoint!)
  url.search = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: AFTER_LOGOUT, state, client_id: rp.client.client_id }).toString()
  const page = await browser.fetch(url.href)
  expect(page.status).toBe(200)
  return page.text()
}

describe('RP-initiated logout', () => {
  it('the person confirms on the Sign out? page: back to the app with its state, the app\'s tokens revoked, and the site\'s own session ended', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true, postLogoutRedirectUris: [AFTER_LOGOUT] })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, rp, browser)
    expect(browser.cookies.has('_session')).toBe(true)
    expect((await session(browser)).authenticated).toBe(true)

    const html = await openEndSession(browser, rp, tokens.id_token!, 'bye-123')
    expect(html).toContain('Sign out?')
    expect(html).toContain('Team app asks to sign you out.')
    const fields = formFields(html, 'op.logoutForm')
    expect(fields.xsrf).toBeTruthy()

    const confirmed = await browser.fetch(formAction(html, 'op.logoutForm'), { form: { ...fields, logout: 'yes' } })
    expect(confirmed.status).toBe(303)
    const back = new URL(confirmed.headers.get('location')!)
    expect(`${back.origin}${back.pathname}`).toBe(AFTER_LOGOUT)
    expect(back.searchParams.get('state')).toBe('bye-123')

    expect((await session(browser)).authenticated).toBe(false)
    expect(browser.cookies.has('_session')).toBe(false)
    expect((await introspect(op, rp, tokens.access_token)).active).toBe(false)
  })

  it('"Stay signed in" goes back to the app and leaves the site\'s session alone', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true, postLogoutRedirectUris: [AFTER_LOGOUT] })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, rp, browser)
    const html = await openEndSession(browser, rp, tokens.id_token!, 'stay')
    const kept = await browser.fetch(formAction(html, 'op.logoutForm'), { form: formFields(html, 'op.logoutForm') })
    expect(kept.status).toBe(303)
    expect(new URL(kept.headers.get('location')!).searchParams.get('state')).toBe('stay')
    expect((await session(browser)).authenticated).toBe(true)
  })

  it('a post-logout address the app did not register is refused on a page, never redirected to', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true, postLogoutRedirectUris: [AFTER_LOGOUT] })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, rp, browser)
    const url = new URL(op.as.end_session_endpoint!)
    url.search = new URLSearchParams({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://attacker.example/out' }).toString()
    const res = await browser.fetch(url.href)
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
  })

  it('a confirm post without the page\'s xsrf value signs nobody out', async () => {
    const rp = await op.register({ name: 'Team app', firstParty: true, postLogoutRedirectUris: [AFTER_LOGOUT] })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, rp, browser)
    const html = await openEndSession(browser, rp, tokens.id_token!, 's')
    const forged = await browser.fetch(formAction(html, 'op.logoutForm'), { form: { xsrf: 'forged', logout: 'yes' } })
    expect(forged.status).toBe(400)
    expect((await session(browser)).authenticated).toBe(true)
    expect((await introspect(op, rp, tokens.access_token)).active).toBe(true)
  })
})

describe('back-channel logout', () => {
  it('signing out through one app sends every other app of the session that asked for it a logout token naming the session, signed with the published keys', async () => {
    const listening = await op.register({ name: 'Back office', firstParty: true, backchannelLogoutUri: `${receiverUrl}/backchannel` })
    const initiating = await op.register({ name: 'Team app', firstParty: true, postLogoutRedirectUris: [AFTER_LOGOUT] })
    const browser = new Browser(op.url)
    await signUp(browser)
    const listeningTokens = await codeFlow(op, listening, browser)
    const idClaims = oauth.getValidatedIdTokenClaims(listeningTokens)!
    // back-channel logout with backchannel_logout_session_required: the ID token carries the session's sid
    expect(idClaims.sid).toEqual(expect.any(String))
    const initiatingTokens = await codeFlow(op, initiating, browser)

    const before = received.length
    const html = await openEndSession(browser, initiating, initiatingTokens.id_token!, 'x')
    const confirmed = await browser.fetch(formAction(html, 'op.logoutForm'), { form: { ...formFields(html, 'op.logoutForm'), logout: 'yes' } })
    expect(confirmed.status).toBe(303)

    // the provider waits for the deliveries before answering
    const delivered = received.slice(before)
    expect(delivered).toHaveLength(1)
    expect(delivered[0]!.path).toBe('/backchannel')
    expect(delivered[0]!.contentType).toMatch(/^application\/x-www-form-urlencoded/)
    const { payload, protectedHeader } = await jwtVerify(delivered[0]!.logoutToken!, createRemoteJWKSet(new URL(op.as.jwks_uri!)), {
      issuer: op.issuer,
      audience: listening.client.client_id,
    })
    expect(protectedHeader.typ).toBe('logout+jwt')
    expect(payload.events).toEqual({ [BACKCHANNEL_EVENT]: {} })
    expect(payload.sid).toBe(idClaims.sid)
    expect(payload.sub).toBe(idClaims.sub)
    expect(payload.jti).toEqual(expect.any(String))
    expect(payload.iat).toEqual(expect.any(Number))
    expect(payload).not.toHaveProperty('nonce')
    expect((await introspect(op, listening, listeningTokens.access_token)).active).toBe(false)
  })

  it('an app that took no part in the session is not told', async () => {
    const bystander = await op.register({ name: 'Back office', firstParty: true, backchannelLogoutUri: `${receiverUrl}/bystander` })
    expect(bystander.client.client_id).toBeTruthy()
    const initiating = await op.register({ name: 'Team app', firstParty: true, postLogoutRedirectUris: [AFTER_LOGOUT] })
    const browser = new Browser(op.url)
    await signUp(browser)
    const tokens = await codeFlow(op, initiating, browser)
    const before = received.length
    const html = await openEndSession(browser, initiating, tokens.id_token!, 'x')
    await browser.fetch(formAction(html, 'op.logoutForm'), { form: { ...formFields(html, 'op.logoutForm'), logout: 'yes' } })
    expect(received.slice(before).filter((r) => r.path === '/bystander')).toEqual([])
  })
})

describe('back-channel logout without oidc.allowLoopbackRequests (the production setting)', () => {
  let plain: OpStack
  beforeAll(async () => {
    plain = await startOpStack()
  })
  afterAll(() => plain?.stop())

  it('the provider does not call a loopback address a client registered, logs the undelivered logout, and the sign-out still completes', async () => {
    const listening = await plain.register({ name: 'Back office', firstParty: true, backchannelLogoutUri: `${receiverUrl}/refused` })
    const initiating = await plain.register({ name: 'Team app', firstParty: true, postLogoutRedirectUris: [AFTER_LOGOUT] })
    const browser = new Browser(plain.url)
    await signUp(browser)
    await codeFlow(plain, listening, browser)
    const tokens = await codeFlow(plain, initiating, browser)
    const url = new URL(plain.as.end_session_endpoint!)
    url.search = new URLSearchParams({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: AFTER_LOGOUT }).toString()
    const html = await (await browser.fetch(url.href)).text()
    const confirmed = await browser.fetch(formAction(html, 'op.logoutForm'), { form: { ...formFields(html, 'op.logoutForm'), logout: 'yes' } })
    expect(confirmed.status).toBe(303)
    expect(received.filter((r) => r.path === '/refused')).toEqual([])
    // the line follows the answer by some milliseconds (an asynchronous stdout: tests/helpers/logs.ts)
    await waitForLog(plain.iam, 'oidc back-channel logout not delivered')
    expect(((await (await browser.fetch('/api/auth/session')).json()) as { authenticated: boolean }).authenticated).toBe(false)
  })
})
