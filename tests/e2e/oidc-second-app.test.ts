/**
 * A team's second app signs its users in with us, in Chromium: a tiny relying party served by the
 * test (oauth4webapi, code + PKCE) sends the browser to our provider; the person signs in on our
 * login page with the password and the authenticator app, allows the app on the consent step, and
 * lands back in the app signed in. axe finds no serious or critical violation on the interaction
 * steps, and their CSP holds.
 */
import { createServer, type Server } from 'node:http'
import * as oauth from 'oauth4webapi'
import { Secret, TOTP } from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorizationUrl, codeParams, insecure, redeem, startOpStack, type RegisteredClient } from '../helpers/oidc-op'
import { codeOf } from '../helpers/smtp'
import { confirmEmailInBrowser, freshEmail, mailTo, PASSWORD, seriousA11yViolations, signInFromInteraction, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack({}, { start: startOpStack })
let app: Server
let appUrl: string
let rp: RegisteredClient

const codeAt = (secret: string, stepOffset: number) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + stepOffset * 30_000 })

/** The second app: "/" starts the sign-in, "/callback" finishes it and greets the person by the claims it got. */
async function startSecondApp(): Promise<void> {
  const pending = new Map<string, { verifier: string; nonce: string }>()
  app = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', appUrl)
    if (url.pathname === '/') {
      const { url: target, verifier, state, nonce } = await authorizationUrl(e2e.stack, rp)
      pending.set(state, { verifier, nonce })
      res.writeHead(303, { location: target }).end()
      return
    }
    if (url.pathname === '/callback') {
      const state = url.searchParams.get('state') ?? ''
      const kept = pending.get(state)
      if (!kept) return void res.writeHead(400).end('unknown state')
      const tokens = await redeem(e2e.stack, rp, codeParams(e2e.stack, rp, url, state), kept.verifier, kept.nonce)
      const claims = oauth.getValidatedIdTokenClaims(tokens)!
      const info = await oauth.processUserInfoResponse(e2e.stack.as, rp.client, claims.sub, await oauth.userInfoRequest(e2e.stack.as, rp.client, tokens.access_token, insecure))
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>Second app</title><h1>Hello ${String(info.email)}</h1><p id="amr">${((claims.amr as string[] | undefined) ?? []).join(" ")}</p>`)
      return
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  const address = app.address()
  appUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

beforeAll(async () => {
  await startSecondApp()
  rp = await e2e.stack.register({ name: 'Second app', redirectUris: [`${appUrl}/callback`] })
})
afterAll(async () => {
  await new Promise((resolve) => app?.close(resolve))
})

describe('a second app signs in through our pages', () => {
  it('with the password and an authenticator code, then consent, the app gets the account and amr names both factors', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const email = freshEmail('second-app')
    await signUpInBrowser(page, e2e.stack.url, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)
    // two-step sign-in on the account
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click()
    const secretText = page.getByTestId('totp-secret')
    await expect.poll(() => secretText.isVisible(), WAIT).toBe(true)
    const secret = ((await secretText.textContent()) ?? '').replace(/\s/g, '')
    await page.getByLabel('Code from the app', { exact: true }).fill(codeAt(secret, 0))
    await page.getByRole('button', { name: 'Turn on' }).click()
    await expect.poll(() => page.getByTestId('recovery-codes').locator('li').count(), WAIT).toBe(10)
    await page.getByRole('button', { name: 'Sign out' }).first().click()
    await page.waitForURL(/\/login/)

    // the app sends the browser to us: signed out, the interaction step asks to sign in first
    await page.goto(`${appUrl}/`)
    await page.waitForURL(/\/interaction\//)
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to Second app' }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await signInFromInteraction(page)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Two-step sign-in' }).isVisible(), WAIT).toBe(true)
    await page.getByLabel(/code/i).first().fill(codeAt(secret, 1))
    await page.getByRole('button', { name: /verify|continue|sign in/i }).first().click()

    // back on the interaction page: the consent step for a third-party app
    await page.waitForURL(/\/interaction\//)
    const allow = page.getByRole('button', { name: 'Allow' })
    await expect.poll(() => allow.isVisible(), WAIT).toBe(true)
    expect(await page.getByText('Your email address, and whether it is confirmed').isVisible()).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await allow.click()
    await page.waitForURL(`${appUrl}/callback**`)
    await expect.poll(() => page.getByRole('heading', { name: `Hello ${email}` }).isVisible(), WAIT).toBe(true)
    expect((await page.locator('#amr').textContent())?.split(' ')).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']))
    expect(csp).toEqual([])
  })

  it('a sign-in the unusual-sign-in check holds asks for the emailed code in place, in words, and still ends in the app', async () => {
    const email = freshEmail('second-app-held')
    const first = await e2e.browser.newPage()
    await signUpInBrowser(first, e2e.stack.url, email)
    // three more browsers sign in within minutes: the fifth device (below) is one too many (docs/anomalies.md)
    const others = []
    for (let i = 0; i < 3; i++) {
      const other = await (await e2e.launchForTest()).newPage()
      others.push(other)
      await other.goto(`${e2e.stack.url}/login`)
      await other.getByLabel('Email', { exact: true }).fill(email)
      await other.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await other.getByRole('button', { name: 'Sign in', exact: true }).click()
      await other.waitForURL(`${e2e.stack.url}/account`)
    }
    const page = await (await e2e.launchForTest()).newPage()
    await page.goto(`${appUrl}/`)
    await page.waitForURL(/\/interaction\//)
    await signInFromInteraction(page)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    // the code is asked here, saying where it went and why; no dead end back at "Sign in first"
    const waiting = page.getByTestId('mfa-waiting')
    await expect.poll(() => waiting.isVisible(), WAIT).toBe(true)
    expect(await waiting.textContent()).toContain(`${email[0]}***@`)
    // five live devices: the live-device cap (check 5) asks before the velocity check would
    expect(await waiting.textContent()).toContain('signed in on many devices')
    expect(await seriousA11yViolations(page)).toEqual([])
    const mail = await mailTo(e2e.stack.smtp, email, '/auth/mfa')
    await page.getByLabel('Code from the email', { exact: true }).fill(codeOf(mail))
    await page.getByRole('button', { name: 'Continue', exact: true }).click()
    // back on the interaction page, then the app
    await page.waitForURL(/\/interaction\//)
    const allow = page.getByRole('button', { name: 'Allow' })
    await expect.poll(() => allow.isVisible(), WAIT).toBe(true)
    await allow.click()
    await page.waitForURL(`${appUrl}/callback**`)
    await expect.poll(() => page.getByRole('heading', { name: `Hello ${email}` }).isVisible(), WAIT).toBe(true)
    for (const other of [first, ...others, page]) await other.close()
    // five browsers, a sign-up and four sign-ins before the held one: about 20 s alone, and past the
    // project's 60 s twice in CI's browser pass, where three files run at once on two cores
  }, 150_000)
})
