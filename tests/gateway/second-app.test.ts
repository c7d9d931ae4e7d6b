/**
 * examples/second-app (docs/oidc-provider.md, "second web app") against the built gateway + IAM: it signs a
 * person in with code + PKCE through the gateway's /oidc, shows the claims, and signs out through
 * RP-initiated logout, which also ends the person's session on the gateway.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'
import { Browser, signUp, startOpStack, walkAuthorization, type OpStack, type RegisteredClient } from '../helpers/oidc-op'

type Listener = (req: IncomingMessage, res: ServerResponse) => void
interface SecondAppModule {
  secondApp(options: { issuer: string; clientId: string; clientSecret: string; baseUrl: string }): Listener
}
// a computed specifier: the example is plain JavaScript without type declarations
const { secondApp } = (await import(pathToFileURL(join(ROOT, 'examples', 'second-app', 'server.mjs')).href)) as SecondAppModule

let op: OpStack
let server: Server
let appUrl: string
let rp: RegisteredClient

beforeAll(async () => {
  op = await startOpStack()
  // the app's address is its redirect URI's: listen first, then register, then hand it the client
  let listener: Listener = (_req, res) => res.end()
  server = createServer((req, res) => listener(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  rp = await op.register({ name: 'Second app', firstParty: true, redirectUris: [`${appUrl}/callback`], postLogoutRedirectUris: [`${appUrl}/`] })
  listener = secondApp({ issuer: op.issuer, clientId: rp.client.client_id, clientSecret: rp.secret!, baseUrl: appUrl })
})
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await op?.stop()
})

describe('examples/second-app', () => {
  it('signs a person in with code + PKCE, shows their claims, and signs them out of the app and the gateway', async () => {
    const gateway = new Browser(op.url)
    const email = await signUp(gateway)
    const app = new Browser(appUrl)

    // sign in: the app sends the browser to the provider, which comes back with a code
    const login = await app.fetch('/login')
    expect(login.status).toBe(302)
    const authorize = new URL(login.headers.get('location')!)
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    const walk = await walkAuthorization(gateway, authorize.href, `${appUrl}/callback`)
    expect(walk.callback).toBeDefined()
    const callback = await app.fetch(walk.callback!.href)
    expect(callback.status, await callback.clone().text()).toBe(302)
    const home = await (await app.fetch('/')).text()
    expect(home).toContain('Signed in as <strong>Ada Lovelace</strong>')
    expect(home).toContain(email)

    expect(await (await gateway.fetch('/api/auth/session')).json()).toMatchObject({ authenticated: true })

    // sign out: the provider asks, the person confirms, the browser comes back to the app
    const logout = await app.fetch('/logout')
    const endSession = new URL(logout.headers.get('location')!)
    expect(endSession.href.startsWith(`${op.issuer}/session/end`)).toBe(true)
    const question = await gateway.fetch(endSession.href)
    expect(question.status).toBe(200)
    const form = await question.text()
    const action = /<form[^>]*action="([^"]+)"/.exec(form)![1]!
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(form)![1]!
    const confirmed = await gateway.fetch(action.replace(/&amp;/g, '&'), { form: { xsrf, logout: 'yes' } })
    expect(confirmed.status).toBe(303)
    expect(confirmed.headers.get('location')).toBe(`${appUrl}/`)
    expect(await (await app.fetch('/')).text()).toContain('You are not signed in.')
    expect(await (await gateway.fetch('/api/auth/session')).json()).toMatchObject({ authenticated: false })
  })
})
