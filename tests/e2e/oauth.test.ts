/**
 * Sign-in with the demo OpenID provider in Chromium against the real stack: the built IAM (HMAC,
 * provider `demo` registered), oidc-provider on loopback (scripts/demo-oidc-provider.mjs, its
 * devInteractions login and consent pages) and the built gateway with the demo provider entry.
 * Saves a screenshot of its last page under test-results/.
 */
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { launchBrowser, saveScreenshot, type Browser } from '../helpers/browser'
import { ROOT } from '../helpers/build'
import { freePort } from '../helpers/fake-iam'
import { startGateway, type GatewayServer } from '../helpers/gateway-server'
import { startIam, type IamServer } from '../helpers/iam-server'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider'
import { hmac, PASSWORD, passwordMeterSettled, seriousA11yViolations, WAIT } from './auth-stack'

interface DemoEntry {
  displayName: string
  clientId: string
  clientSecret: string
  redirectUri: string
  tokenAuthMethod: 'client_secret_basic' | 'client_secret_post'
}
interface DemoModule {
  demoProviderEntry(opts: { issuer: string; gatewayUrl: string }): DemoEntry & Record<string, unknown>
  DEMO_ACCOUNT: { sub: string; email: string }
}

let iam: IamServer
let op: OidcProvider
let gw: GatewayServer
let base: string
let demo: DemoModule
let entry: DemoEntry & Record<string, unknown>
let browser: Browser | undefined

beforeAll(async () => {
  demo = (await import(pathToFileURL(join(ROOT, 'scripts', 'demo-oidc-provider.mjs')).href)) as DemoModule
  iam = await startIam({ config: { service: { Hmac: hmac }, providers: [{ name: 'demo', useStandardProfile: true }] } })
  // the gateway's port goes into the client's redirect_uri, which the provider needs at start: pick it first
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  const opPort = await freePort()
  entry = demo.demoProviderEntry({ issuer: `http://127.0.0.1:${opPort}`, gatewayUrl: base })
  op = await startOidcProvider(
    [{ client_id: entry.clientId, client_secret: entry.clientSecret, redirect_uris: [entry.redirectUri], token_endpoint_auth_method: entry.tokenAuthMethod }],
    opPort,
  )
  expect(op.issuer).toBe(entry['issuer'])
  gw = await startGateway({
    port,
    config: { iam: { url: iam.url, hmac }, cookieSecret: 'e2e-oauth-cookie-secret-0123456789abcdef01', OAuthProviders: [entry] },
  })
})
afterEach(async () => {
  await browser?.close()
  browser = undefined
})
afterAll(async () => {
  await gw?.stop()
  await op?.stop()
  await iam?.stop()
})

/** From the login page through the demo provider's sign-in (and its consent, when it asks) to the account page. */
async function signInThroughDemoProvider(page: Page): Promise<void> {
  // devInteractions' layout @imports a Google font; nothing may leave loopback, so answer it at once
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort())
  await page.goto(`${base}/login`)
  await page.getByRole('link', { name: `Continue with ${entry.displayName}` }).click()
  await page.waitForURL((u) => u.href.startsWith(`${op.issuer}/interaction/`))
  await page.getByPlaceholder('Enter any login').fill(demo.DEMO_ACCOUNT.sub)
  await page.getByPlaceholder('and password').fill('any password')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  // the provider asks for consent on a first grant; accept it when it does
  const consent = page.getByRole('button', { name: 'Continue' })
  await expect.poll(async () => page.url().startsWith(`${base}/account`) || (await consent.isVisible()), WAIT).toBe(true)
  if (page.url().startsWith(op.issuer)) await consent.click()
  await page.waitForURL(`${base}/account`)
}

describe('OAuth sign-in in the browser', () => {
  it('signs in with the demo OpenID provider and lands on the account page (no password form) with HttpOnly session cookies', async () => {
    browser = await launchBrowser()
    const page = await browser.newPage()
    await signInThroughDemoProvider(page)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.locator('#personal-info').getByText(demo.DEMO_ACCOUNT.email).isVisible(), WAIT).toBe(true)
    await page.goto(`${base}/account/security`)
    // an account made through the provider has no password: the page names the provider and offers to set one
    const password = page.getByRole('region', { name: 'Set a password' })
    await expect.poll(() => password.getByText(`You sign in with ${entry.displayName}.`, { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await page.getByLabel('Current password').count()).toBe(0)

    const cookies = await browser.context.cookies(base)
    expect(cookies.find((c) => c.name === '__Secure-a')).toMatchObject({ httpOnly: true, secure: true })
    expect(cookies.find((c) => c.name === 'session')?.httpOnly).toBe(true)
    const visible = await page.evaluate(() => document.cookie)
    expect(visible).not.toContain('__Secure-a')
    expect(visible).not.toContain('session=')
    await saveScreenshot(page, 'oauth-demo-provider-account')
  })

  it('lets a provider account set a first password, then unlink the provider, and sign in with the password', async () => {
    browser = await launchBrowser()
    const page = await browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await signInThroughDemoProvider(page)
    await page.goto(`${base}/account/security`)

    // the only way in: listed, and no Unlink until another way exists
    const linked = page.getByRole('region', { name: 'Linked accounts' })
    await expect.poll(() => linked.getByText(demo.DEMO_ACCOUNT.email).isVisible(), WAIT).toBe(true)
    await expect.poll(() => linked.getByText(`You cannot unlink ${entry.displayName}`, { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await linked.getByRole('button', { name: `Unlink ${entry.displayName}` }).count()).toBe(0)
    expect(await seriousA11yViolations(page)).toEqual([])

    // a first password, without a current one (the sign-in a moment ago is recent enough)
    const setPassword = page.getByRole('region', { name: 'Set a password' })
    await setPassword.getByLabel('New password', { exact: true }).fill(PASSWORD)
    await setPassword.getByLabel('Repeat the new password').fill(PASSWORD)
    await passwordMeterSettled(page)
    await setPassword.getByRole('button', { name: 'Set password' }).click()
    await expect.poll(() => page.getByText('Your password is set.', { exact: false }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByLabel('Current password').isVisible(), WAIT).toBe(true)

    // now the provider can go: asked in place, by keyboard
    await linked.getByRole('button', { name: `Unlink ${entry.displayName}` }).focus()
    await page.keyboard.press('Enter')
    const confirm = linked.getByRole('group', { name: `Unlink ${entry.displayName}? It will no longer sign you in.` })
    await expect.poll(() => confirm.isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => linked.getByText(`${entry.displayName} is unlinked`, { exact: false }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => linked.getByText('No accounts are linked.').isVisible(), WAIT).toBe(true)
    // no horizontal scrolling at 390 px
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await saveScreenshot(page, 'linked-account-unlinked-390')

    // the password signs in
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.getByLabel('Email', { exact: true }).fill(demo.DEMO_ACCOUNT.email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${base}/account`)
    await expect.poll(() => page.locator('#main').getByText(demo.DEMO_ACCOUNT.email).isVisible(), WAIT).toBe(true)
  })
})
