/**
 * The provider's browser session follows the person's session at the gateway
 * (iam/features/oidc/gateway-session.ts). Before this rule, signing in at the gateway as Y over a
 * live session of X kept the provider's session for X (14 days, always remembered): apps then
 * silently received X's identity while our pages showed Y.
 */
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PASSWORD } from '../e2e/auth-stack'
import { authorizationUrl, Browser, codeFlow, codeParams, newEmail, redeem, signUp, startOpStack, walkAuthorization, type OpStack } from '../helpers/oidc-op'

let op: OpStack

beforeAll(async () => {
  op = await startOpStack()
})
afterAll(() => op?.stop())

/** A browser that also keeps every Set-Cookie line it was sent, attributes included. */
class RecordingBrowser extends Browser {
  readonly setCookieLines: string[] = []
  override async fetch(...args: Parameters<Browser['fetch']>): Promise<Response> {
    const res = await super.fetch(...args)
    this.setCookieLines.push(...res.headers.getSetCookie())
    return res
  }
}

const subOf = (result: oauth.TokenEndpointResponse) => oauth.getValidatedIdTokenClaims(result)!.sub

/** The account's `sub` for the team's own app: a fresh browser signs the address up and in. */
async function subFor(rp: Awaited<ReturnType<OpStack['register']>>, email: string): Promise<string> {
  const browser = new Browser(op.url)
  await signUp(browser, email)
  return subOf(await codeFlow(op, rp, browser))
}

describe("the provider's session follows the gateway's", () => {
  it('a sign-in at the gateway as another account replaces it: the app receives the new account, never the old one', async () => {
    const rp = await op.register({ name: 'Team app', public: true, firstParty: true })
    const yEmail = newEmail('y')
    const ySub = await subFor(rp, yEmail)
    const browser = new Browser(op.url)
    await signUp(browser, newEmail('x'))
    const xSub = subOf(await codeFlow(op, rp, browser))
    expect(xSub).not.toBe(ySub)

    const login = await browser.post('/api/auth/login', { email: yEmail, password: PASSWORD })
    expect(login.status, await login.clone().text()).toBe(200)
    expect(subOf(await codeFlow(op, rp, browser))).toBe(ySub)
  })

  it('when the gateway session has ended, an app asking silently (prompt=none) gets login_required, not the old account', async () => {
    const rp = await op.register({ name: 'Silent app', public: true, firstParty: true })
    const browser = new Browser(op.url)
    await signUp(browser)
    await codeFlow(op, rp, browser)
    // the gateway's session cookie is gone (expired, or cleared with the site's cookies)
    browser.cookies.delete('session')
    browser.cookies.delete('access')
    const { url, state } = await authorizationUrl(op, rp, { prompt: 'none' })
    const walk = await walkAuthorization(browser, url, rp.redirectUri)
    expect(walk.callback, `ended at ${walk.stopped?.status}`).toBeDefined()
    expect(() => codeParams(op, rp, walk.callback!, state)).toThrow()
    expect(walk.callback!.searchParams.get('error')).toBe('login_required')
  })

  it("lasts as the person chose: a sign-in without 'remember me' gives the provider a session cookie that ends with the browser", async () => {
    const rp = await op.register({ name: 'Remembering app', public: true, firstParty: true })
    const email = newEmail('remember')
    await signUp(new Browser(op.url), email)
    for (const rememberUser of ['off', 'on'] as const) {
      const browser = new RecordingBrowser(op.url)
      const login = await browser.post('/api/auth/login', { email, password: PASSWORD, rememberUser })
      expect(login.status, await login.clone().text()).toBe(200)
      const { url, verifier, state, nonce } = await authorizationUrl(op, rp)
      const walk = await walkAuthorization(browser, url, rp.redirectUri)
      await redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
      const providerSession = browser.setCookieLines.filter((line) => /^_session=[^;]+/.test(line))
      expect(providerSession.length, rememberUser).toBeGreaterThan(0)
      const persistent = providerSession.every((line) => /;\s*(expires|max-age)=/i.test(line))
      expect(persistent, `${rememberUser}: ${providerSession.join(' | ')}`).toBe(rememberUser === 'on')
    }
  })
})
