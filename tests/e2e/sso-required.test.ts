/**
 * Requiring SSO in the browser (docs/enterprise.md, "Requiring SSO"), in Chromium at 390 px, left to
 * right and right to left: the sign-in page offers the organization's sign-in instead of the password for an
 * address of its domain, and "forgot password" for such an address answers with the same button
 * (the IAM's 403 `sso_required`) instead of the mail notice; the sentence in the language, no raw
 * code, no text wider than its box, axe clean. The same stack (its DNS server answers the TXT
 * records) walks the owner's enterprise settings on the organization page (docs/enterprise.md, "From
 * the console"): a domain claimed and verified, a SCIM token shown once and logged, the SAML connection
 * set from a metadata file and its test sign-in started. And the SAML sign-in itself against a real
 * identity provider (tests/helpers/samlify-idp.ts: samlify with its own key, on loopback): the address
 * typed at /login routes to it, the person signs in there, comes back signed in where they were going,
 * a member of the organization with the role of their group; a second sign-in finds the same account.
 */
import { Secret, TOTP } from 'otpauth'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { startDnsServer, type DnsServer, type Zone } from '../helpers/dns-server'
import { makeIdpKeys } from '../helpers/saml-idp'
import { startSamlifyIdp, type SamlifyIdp } from '../helpers/samlify-idp'
import { confirmEmailInBrowser, freshEmail, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'
import { message, overflowing, type Locale } from './i18n-checks'

// one left-to-right and one right-to-left language: the sentence's words in all six are the
// catalogue test's (tests/unit/i18n-catalogue.test.ts); what a browser adds is layout and direction
const CHECKED: Locale[] = ['en', 'ar']

const zones: Record<string, Zone> = {}
let dns: DnsServer | undefined
let idp: SamlifyIdp | undefined
const e2e = useE2eStack(async () => {
  dns = await startDnsServer(zones)
  idp = await startSamlifyIdp({ keys: makeIdpKeys('samlify-e2e') })
  return { iamConfig: (port) => ({ enterprise: { gatewayOrigin: `http://127.0.0.1:${port}`, dnsServers: [dns!.server] } }) }
})
afterAll(async () => {
  await dns?.stop()
  await idp?.stop()
})

const domain = `required${Date.now().toString(36)}.test`
let connectionId = ''

/** POST (or, without a body, GET) to the BFF from the page, as its own scripts do. */
async function bff(page: Page, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return page.evaluate(
    async ([url, data]) => {
      const init: RequestInit = data === undefined ? { headers: { accept: 'application/json' } } : { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf': '1' }, body: JSON.stringify(data) }
      const res = await fetch(url, init)
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

  it('an owner sets the SAML connection from a metadata file, reads what to enter at the identity provider, and the test sign-in starts at the provider, at 390 px', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    const owner = freshEmail('console-sso-owner')
    await signUpInBrowser(page, e2e.stack.url, owner)
    await confirmEmailInBrowser(page, e2e.stack.smtp, owner)
    const org = await bff(page, '/api/orgs', { name: 'Console SSO', slug: `console-sso-${Date.now().toString(36)}` })
    const orgId = (org.json.data as { org: { id: string } }).org.id
    await page.goto(`${e2e.stack.url}/orgs/${orgId}`)
    await expect.poll(() => page.getByText('No connection is set up yet.').isVisible(), WAIT).toBe(true)

    // a document that is no metadata is refused at its field, in words
    await page.getByLabel('Metadata XML', { exact: true }).fill('<html>not metadata</html>')
    await page.getByRole('button', { name: 'Save connection' }).click()
    await expect.poll(() => page.locator('#sso-xml-error').textContent(), WAIT).toContain('This metadata could not be read.')

    // the provider's metadata file, read in the browser and sent as text
    const keys = makeIdpKeys('console-e2e')
    const metadata = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.console.test/e"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${keys.certBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.console.test/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`
    await page.getByLabel('Metadata file').setInputFiles({ name: 'idp.xml', mimeType: 'application/xml', buffer: Buffer.from(metadata) })
    await expect.poll(() => page.getByLabel('Metadata XML', { exact: true }).inputValue(), WAIT).toBe(metadata)
    await page.getByLabel('Connection on').check()
    await page.getByRole('button', { name: 'Save connection' }).click()
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'The connection was saved.' }).count(), WAIT).toBe(1)

    const current = page.getByTestId('org-sso')
    expect(await current.textContent()).toContain('https://idp.console.test/e')
    expect(await current.textContent()).toContain('CN=console-e2e')
    const acs = (await page.locator('#sso-sp-acs').textContent())!
    expect(acs).toMatch(new RegExp(`^${e2e.stack.url.replace(/[.]/g, '\\.')}/sso/saml/[0-9a-f-]{36}/acs$`))
    const test = page.getByTestId('sso-test')
    const href = (await test.getAttribute('href'))!
    expect(href).toBe(`${new URL(acs).pathname.replace(/acs$/, 'start')}?returnTo=${encodeURIComponent(`/orgs/${orgId}`)}`)
    // the link's start answers a redirect to the provider with an AuthnRequest (HTTP-Redirect binding)
    const started = await page.request.get(`${e2e.stack.url}${href}`, { maxRedirects: 0 })
    expect(started.status()).toBe(302)
    expect(started.headers().location).toMatch(/^https:\/\/idp\.console\.test\/sso\?SAMLRequest=/)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflowing(page)).toEqual([])
    expect(csp).toEqual([])
  })
})

describe('signing in through the organization identity provider', () => {
  // made by the first test, signed in again by the second
  let saml: { orgId: string; roleId: string; ownerPage: Page; email: string; nameId: string; userId: string } | undefined

  /**
   * /login at 390 px, the address typed, the organization's button, the provider's page and back
   * (at `returnTo`, unless `stepFirst`: a second-factor step comes first); the CSP reports on the way.
   */
  async function signInThroughIdp(email: string, returnTo: string, { stepFirst = false } = {}): Promise<{ page: Page; csp: string[] }> {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    await page.goto(`${e2e.stack.url}/login?returnTo=${encodeURIComponent(returnTo)}`)
    await page.locator('#email').fill(email)
    const go = page.getByTestId('sso-continue').getByRole('link', { name: 'Continue with your company sign-in' })
    await expect.poll(() => go.isVisible(), WAIT).toBe(true)
    await go.click()
    await page.waitForURL((url) => url.href.startsWith(idp!.ssoUrl))
    await page.getByRole('button', { name: `Sign in as ${email}` }).click()
    if (!stepFirst) await page.waitForURL(`${e2e.stack.url}${returnTo}`, WAIT)
    return { page, csp }
  }

  it('a new person of a verified domain is sent to the identity provider from the sign-in page, comes back signed in where they were going, a member with the role of their group, at 390 px', async () => {
    const ownerPage = await e2e.browser.newPage()
    const owner = freshEmail('saml-owner')
    await signUpInBrowser(ownerPage, e2e.stack.url, owner)
    await confirmEmailInBrowser(ownerPage, e2e.stack.smtp, owner)
    const org = await bff(ownerPage, '/api/orgs', { name: 'Samlify Corp', slug: `samlify-${Date.now().toString(36)}` })
    expect(org.status).toBe(201)
    const orgId = (org.json.data as { org: { id: string } }).org.id
    const samlDomain = `samlify${Date.now().toString(36)}.test`
    const added = await bff(ownerPage, `/api/orgs/${orgId}/domains`, { domain: samlDomain })
    const view = (added.json.data as { domain: { id: string; txt: { name: string; value: string } } }).domain
    zones[view.txt.name] = { txt: [view.txt.value] }
    expect((await bff(ownerPage, `/api/orgs/${orgId}/domains/verify`, { domainId: view.id })).status).toBe(200)
    const role = await bff(ownerPage, `/api/orgs/${orgId}/roles`, { name: 'support', permissions: ['organization:read', 'members:read'] })
    expect(role.status).toBe(201)
    const roleId = (role.json.data as { role: { id: string } }).role.id
    // the provider's own metadata, as an owner pastes it, and the group mapping
    const saved = await bff(ownerPage, `/api/orgs/${orgId}/sso`, { idpMetadataXml: idp!.metadataXml, enabled: true, attributeMapping: { groups: 'groups', groupRoles: { Support: roleId } } })
    expect(saved.status, JSON.stringify(saved.json)).toBe(200)
    const connection = (saved.json.data as { connection: { idpSsoUrl: string; sp: { metadataUrl: string } } }).connection
    expect(connection.idpSsoUrl).toBe(idp!.ssoUrl)
    // the provider's administrator registers the application from our SP metadata
    idp!.trust(await (await ownerPage.request.get(connection.sp.metadataUrl)).text())

    const email = `dana@${samlDomain}`
    const nameId = `samlify|${Date.now().toString(36)}`
    idp!.signInAs({ nameId, email, displayName: 'Dana Samlify', groups: ['Everyone', 'Support'] })
    const { page, csp } = await signInThroughIdp(email, `/orgs/${orgId}`)
    // the organization's page, naming their role and showing what the role may read
    await expect.poll(() => page.getByRole('heading', { name: 'Samlify Corp', level: 1 }).isVisible(), WAIT).toBe(true)
    expect(await page.locator('main p.muted').first().textContent()).toContain('support')
    await expect.poll(() => page.getByRole('heading', { name: 'Members' }).isVisible(), WAIT).toBe(true)
    expect(idp!.answered).toHaveLength(1)
    const session = await bff(page, '/api/auth/session')
    expect(session.json).toMatchObject({ authenticated: true, email, emailVerified: true, name: 'Dana Samlify' })
    const userId = (session.json as { userId: string }).userId
    // just in time a member of the organization, with the role of the Support group
    const orgs = await bff(page, '/api/orgs')
    expect((orgs.json.data as { orgs: { id: string; role: string }[] }).orgs).toEqual([expect.objectContaining({ id: orgId, role: roleId })])
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflowing(page)).toEqual([])
    expect(csp).toEqual([])
    saml = { orgId, roleId, ownerPage, email, nameId, userId }
  })

  it('the same person signing in again is the same account, found by connection and NameID whatever address the provider sends, and no second member', async () => {
    expect(saml, 'the first sign-in ran').toBeDefined()
    const { orgId, roleId, ownerPage, email, nameId, userId } = saml!
    // the provider renamed the address; the NameID is what keys the account
    const renamed = email.replace('dana@', 'dana.renamed@')
    idp!.signInAs({ nameId, email: renamed, displayName: 'Dana Samlify', groups: ['Support'] })
    const { page, csp } = await signInThroughIdp(renamed, '/account')
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
    expect(idp!.answered).toHaveLength(2)
    const session = await bff(page, '/api/auth/session')
    expect(session.json).toMatchObject({ authenticated: true, userId })
    const members = await bff(ownerPage, `/api/orgs/${orgId}/members`)
    const rows = (members.json.data as { members: { email: string; role: string }[] }).members.filter((m) => m.email.startsWith('dana'))
    expect(rows).toEqual([expect.objectContaining({ email, role: roleId })])
    expect(csp).toEqual([])
  })

  it('a person who added an authenticator app is asked for its code after the identity provider, then lands where they were going, at 390 px', async () => {
    expect(saml, 'the first sign-in ran').toBeDefined()
    const { orgId, email, nameId } = saml!
    idp!.signInAs({ nameId, email, displayName: 'Dana Samlify', groups: ['Support'] })
    const first = await signInThroughIdp(email, '/account')
    const setup = await bff(first.page, '/api/auth/totp/setup', {})
    expect(setup.status).toBe(200)
    const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32((setup.json.data as { secret: string }).secret) })
    expect((await bff(first.page, '/api/auth/totp/enable', { code: totp.generate() })).status).toBe(200)

    // another browser: the provider's answer is not the whole sign-in any more
    const { page, csp } = await signInThroughIdp(email, `/orgs/${orgId}`, { stepFirst: true })
    const heading = page.getByRole('heading', { name: 'Two-step sign-in' })
    await expect.poll(() => heading.isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflowing(page)).toEqual([])
    // the next step's code: the enrolment spent this one
    await page.getByLabel('Authentication code').fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(`${e2e.stack.url}/orgs/${orgId}`, WAIT)
    await expect.poll(() => page.getByRole('heading', { name: 'Samlify Corp', level: 1 }).isVisible(), WAIT).toBe(true)
    expect(csp).toEqual([])
  })
})
