/**
 * Requiring SSO in the browser (docs/enterprise.md, "Requiring SSO"), in Chromium at 390 px, left to
 * right and right to left: the sign-in page offers the organization's sign-in instead of the password for an
 * address of its domain, and "forgot password" for such an address answers with the same button
 * (the IAM's 403 `sso_required`) instead of the mail notice; the sentence in the language, no raw
 * code, no text wider than its box, axe clean.
 */
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { startDnsServer, type DnsServer, type Zone } from '../helpers/dns-server'
import { makeIdpKeys } from '../helpers/saml-idp'
import { confirmEmailInBrowser, freshEmail, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'
import { message, overflowing, type Locale } from './i18n-checks'

// one left-to-right and one right-to-left language: the sentence's words in all six are the
// catalogue test's (tests/unit/i18n-catalogue.test.ts); what a browser adds is layout and direction
const CHECKED: Locale[] = ['en', 'ar']

const zones: Record<string, Zone> = {}
let dns: DnsServer | undefined
const e2e = useE2eStack(async () => {
  dns = await startDnsServer(zones)
  return { iamConfig: (port) => ({ enterprise: { gatewayOrigin: `http://127.0.0.1:${port}`, dnsServers: [dns!.server] } }) }
})
afterAll(() => dns?.stop())

const domain = `required${Date.now().toString(36)}.test`
let connectionId = ''

/** POST to the BFF from the page, as its own scripts do. */
async function bff(page: Page, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return page.evaluate(
    async ([url, data]) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf': '1' }, body: JSON.stringify(data) })
      return { status: res.status, json: (await res.json()) as Record<string, unknown> }
    },
    [path, body] as const,
  )
}

/** An owner's organization with `domain` verified and a connection that requires SSO: made once, by the first test. */
let ready: Promise<void> | undefined
function ensureOrganization(): Promise<void> {
  ready ??= (async () => {
    const page = await e2e.browser.newPage()
    const owner = freshEmail('sso-required-owner')
    await signUpInBrowser(page, e2e.stack.url, owner)
    await confirmEmailInBrowser(page, e2e.stack.smtp, owner)
    const org = await bff(page, '/api/orgs', { name: 'Required Corp', slug: `required-${Date.now().toString(36)}` })
    expect(org.status).toBe(201)
    const orgId = (org.json.data as { org: { id: string } }).org.id
    const added = await bff(page, `/api/orgs/${orgId}/domains`, { domain })
    const view = (added.json.data as { domain: { id: string; txt: { name: string; value: string } } }).domain
    zones[view.txt.name] = { txt: [view.txt.value] }
    expect((await bff(page, `/api/orgs/${orgId}/domains/verify`, { domainId: view.id })).status).toBe(200)
    const keys = makeIdpKeys('sso-required-e2e')
    const connection = await bff(page, `/api/orgs/${orgId}/sso`, { idpEntityId: 'https://idp.example.test/entity', idpSsoUrl: 'https://idp.example.test/sso', idpCertificate: keys.cert, enabled: true, requireSso: true })
    expect(connection.status).toBe(200)
    connectionId = (connection.json.data as { connection: { id: string } }).connection.id
    await page.close()
  })()
  return ready
}

async function pageIn(code: Locale): Promise<Page> {
  const browser = await e2e.launchForTest()
  await browser.context.addCookies([{ name: 'locale', value: code, url: e2e.stack.url }])
  const page = await browser.newPage()
  await page.setViewportSize({ width: 390, height: 844 })
  return page
}

/** The organization's sign-in as the pages show it: the sentence, the button and where it goes. */
async function expectOrganizationSignIn(page: Page, code: Locale, returnTo: string) {
  const box = page.getByTestId('sso-continue')
  await expect.poll(() => box.locator('p').textContent(), WAIT).toBe(message(code, 'enterprise.login.required'))
  expect(await box.locator('a').textContent()).toBe(message(code, 'enterprise.login.continue'))
  expect(await box.locator('a').getAttribute('href')).toBe(`/sso/saml/${connectionId}/start?returnTo=${encodeURIComponent(returnTo)}`)
  expect(await page.locator('main').textContent()).not.toContain('sso_required')
  expect(await seriousA11yViolations(page)).toEqual([])
  expect(await overflowing(page)).toEqual([])
}

describe('an organization that requires its own sign-in', () => {
  it.each(CHECKED)('%s: the sign-in page and forgot-password offer the organization sign-in, at 390 px', async (code) => {
    await ensureOrganization()
    const page = await pageIn(code)
    const csp = watchCsp(page)
    await page.goto(`${e2e.stack.url}/login?returnTo=%2Forgs`)
    await page.locator('#email').fill(`ada@${domain}`)
    await expectOrganizationSignIn(page, code, '/orgs')
    expect(await page.locator('#password').count()).toBe(0)

    await page.goto(`${e2e.stack.url}/forgot-password`)
    await page.locator('#email').fill(`ada@${domain}`)
    await page.locator('main form button[type="submit"]').click()
    await expectOrganizationSignIn(page, code, '/account')
    expect(await page.locator('.alert.success').count()).toBe(0)
    expect(csp).toEqual([])
  })
})

describe('the enterprise settings on the organization page', () => {
  it('an owner adds a domain, sees its TXT record, verifies it once published, creates a SCIM token shown once and finds it in the log, at 390 px', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    const owner = freshEmail('console-owner')
    await signUpInBrowser(page, e2e.stack.url, owner)
    await confirmEmailInBrowser(page, e2e.stack.smtp, owner)
    const org = await bff(page, '/api/orgs', { name: 'Console Corp', slug: `console-${Date.now().toString(36)}` })
    expect(org.status).toBe(201)
    const orgId = (org.json.data as { org: { id: string } }).org.id
    await page.goto(`${e2e.stack.url}/orgs/${orgId}`)
    await expect.poll(() => page.getByRole('heading', { name: 'Enterprise sign-in' }).isVisible(), WAIT).toBe(true)

    // the claim answers the TXT record to publish, shown with its name and value to copy
    const claimed = `console${Date.now().toString(36)}.test`
    await page.getByLabel('Domain', { exact: true }).fill(claimed)
    await page.getByRole('button', { name: 'Add domain' }).click()
    await expect.poll(() => page.getByRole('status').filter({ hasText: `${claimed} was added.` }).count(), WAIT).toBe(1)
    const list = page.getByTestId('org-domains')
    await expect.poll(() => list.textContent(), WAIT).toContain(`_identity-platform.${claimed}`)
    const value = (await list.locator('code[id^="domain-txt-value-"]').textContent())!.trim()
    expect(value).toMatch(/^identity-platform-verification=[A-Za-z0-9_-]+$/)

    // before DNS has it: said in words, with the name it was looked for at
    const check = page.getByRole('button', { name: `Check the DNS record of ${claimed} now` })
    await check.click()
    await expect.poll(() => page.getByRole('alert').filter({ hasText: `The TXT record of ${claimed} was not found at _identity-platform.${claimed} yet.` }).count(), WAIT).toBe(1)
    zones[`_identity-platform.${claimed}`] = { txt: [value] }
    await check.click()
    await expect.poll(() => page.getByRole('status').filter({ hasText: `${claimed} is verified.` }).count(), WAIT).toBe(1)
    await expect.poll(() => list.textContent(), WAIT).toContain('verified on')
    expect(await list.locator('code[id^="domain-txt-value-"]').count()).toBe(0)

    // the SCIM token: shown once, its creation in the log
    await page.getByRole('button', { name: 'Create token' }).click()
    const raw = page.locator('#raw-token')
    await expect.poll(() => raw.inputValue(), WAIT).toMatch(/^scim_[A-Za-z0-9_-]{43}$/)
    const token = await raw.inputValue()
    await expect.poll(() => page.getByTestId('org-scim-log').locator('[data-action="token.created"]').count(), WAIT).toBe(1)
    expect(await page.getByTestId('org-scim-log').textContent()).toContain('Token created')
    expect(await page.locator('code', { hasText: `${e2e.stack.url}/scim/v2` }).count()).toBe(1)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflowing(page)).toEqual([])
    await page.getByRole('button', { name: 'I have saved it' }).click()
    expect(await raw.count()).toBe(0)

    // a reload shows the token's last characters only, and the same page right to left fits too
    await browser.context.addCookies([{ name: 'locale', value: 'ar', url: e2e.stack.url }])
    await page.reload()
    await expect.poll(() => page.getByTestId('org-scim').textContent(), WAIT).toContain(token.slice(-4))
    expect(await page.locator('main').textContent()).not.toContain(token)
    await expect.poll(() => page.getByTestId('org-scim-log').locator('[data-action="token.created"]').textContent(), WAIT).toBe(message('ar', 'orgs.scim.action.tokenCreated'))
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflowing(page)).toEqual([])
    expect(csp).toEqual([])
  })
})
