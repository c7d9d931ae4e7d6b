/**
 * The organization pages and the administration console in German, Japanese and Arabic
 * (docs/i18n.md), in Chromium at 390 px, against one stack for the whole file: an organization's
 * settings with a pending invitation, the console's account list, one account, the organization
 * list and the sign-ups per hour, each with its headings in the language, none of a handful of English sentences left, a
 * count in the language's plural form, `lang` and `dir` on the page, axe clean, no text wider than its box.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { signRequestV2 } from '../../iam/client/hmac'
import { pluralIndex } from '../../i18n/plural-forms'
import { saveScreenshot } from '../helpers/browser'
import { CLOCK_ENV } from '../helpers/clock'
import { freshEmail, hmac, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'
import { message, overflowing, type Locale } from './i18n-checks'

// the test build's routes (POST /__test/platform-admin grants the role); the clock is never moved
const e2e = useE2eStack({ iamEnv: CLOCK_ENV }, { browsers: [] })

/** German (long words), Japanese (no spaces, one plural form) and Arabic (right to left, six plural forms). */
const CHECKED: readonly Locale[] = ['de', 'ja', 'ar']

/** Sentences of the organization settings page that must not be left in English. */
const ORG_KEYS = [
  'orgs.settings.members',
  'orgs.settings.invitations',
  'orgs.settings.leaveOrDelete',
  'orgs.invitations.send',
  'orgs.invitations.pending',
  'orgs.roles.intro',
  'orgs.roles.createHeading',
  'orgs.permission.membersRead',
  'orgs.leave.button',
  'orgs.delete.intro',
  'orgs.settings.enterprise',
  'orgs.domains.intro',
  'orgs.domains.nameHint',
  'orgs.sso.setHeading',
  'orgs.sso.requireSsoHint',
  'orgs.scim.none',
  'orgs.scim.logEmpty',
]
/** Sentences of the console's pages that must not be left in English. */
const ADMIN_KEYS = [
  'admin.title',
  'admin.nav.accounts',
  'admin.users.searchHint',
  'admin.list.search',
  'admin.users.all',
  'admin.user.actions',
  'admin.user.signOutEverywhere',
  'admin.user.factors',
  'admin.user.events',
  'admin.user.roleAdmin',
  'admin.orgs.all',
]

/** POST /__test/platform-admin on the IAM (signed: the stack's IAM requires HMAC). */
async function grantAdmin(email: string): Promise<void> {
  const body = JSON.stringify({ email, admin: true })
  const headers = signRequestV2({ ...hmac, method: 'POST', url: '/__test/platform-admin', body })
  const res = await fetch(`${e2e.stack.iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  expect(res.status, await res.text()).toBe(200)
}

/** The English sentences among `keys` that the page shows although the language has its own words for them. */
async function englishLeft(page: Page, code: Locale, keys: readonly string[]): Promise<string[]> {
  const text = await page.evaluate(() => document.body.innerText)
  return keys.filter((key) => message(code, key) !== message('en', key) && text.includes(message('en', key))).map((key) => `${key}: ${message('en', key)}`)
}

/** A counted message's form for `count` in the language, its number filled in (i18n/plural-forms.ts). */
const counted = (code: Locale, key: string, count: number) => {
  const forms = message(code, key).split(' | ')
  return forms[pluralIndex(code, count, forms.length)]!.replace('{count}', String(count))
}

/** The checks every page is held to in every language. */
async function checkLayout(page: Page, code: Locale): Promise<void> {
  expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([code, code === 'ar' ? 'rtl' : 'ltr'])
  expect(await seriousA11yViolations(page)).toEqual([])
  expect(await overflowing(page)).toEqual([])
}

describe('the organization pages and the admin console in each language', () => {
  it.each(CHECKED)('%s: an organization, the account list, an account, the organization list and the sign-ups read in the language, at 390 px', async (code) => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    const csp = watchCsp(page)
    const email = freshEmail(`i18n-admin-${code}`)
    // signed up in English (the helper knows its labels), then the person chooses the language
    await signUpInBrowser(page, e2e.stack.url, email)
    await grantAdmin(email)
    await browser.context.addCookies([{ name: 'locale', value: code, url: e2e.stack.url }])
    await page.setViewportSize({ width: 390, height: 844 })

    // an organization, created on /orgs, and an invitation sent from its settings
    await page.goto(`${e2e.stack.url}/orgs`)
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe(message(code, 'orgs.list.title'))
    await page.locator('#org-name').fill(`Acme Rockets ${code}`)
    await page.locator('#create-organization button[type="submit"]').click()
    await page.waitForURL(/\/orgs\/[^/?]+\?created=1/)
    await expect.poll(() => page.locator('#members-heading').textContent(), WAIT).toBe(message(code, 'orgs.settings.members'))
    const invitee = freshEmail(`i18n-invitee-${code}`)
    await page.locator('#invite-email').fill(invitee)
    await page.locator('form.invite button[type="submit"]').click()
    await expect.poll(() => page.locator('[data-testid="org-invitations"] li').count(), WAIT).toBe(1)
    await expect.poll(() => page.locator('#invitations .alert.success').textContent(), WAIT).toBe(message(code, 'orgs.invitations.sent').replace('{email}', invitee))
    // the owner's enterprise sign-in section, read once its three parts have loaded
    await expect.poll(() => page.locator('#enterprise-heading').textContent(), WAIT).toBe(message(code, 'orgs.settings.enterprise'))
    await expect.poll(() => page.locator('#enterprise p[role="status"]').count(), WAIT).toBe(0)
    expect(await englishLeft(page, code, ORG_KEYS)).toEqual([])
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-org-settings`)

    // the console's account list, searched for the account
    await page.goto(`${e2e.stack.url}/admin?q=${encodeURIComponent(email)}`)
    await expect.poll(() => page.locator('#accounts-heading').textContent(), WAIT).toBe(message(code, 'admin.users.heading'))
    const found = page.getByTestId('admin-users').getByRole('link', { name: email })
    await expect.poll(() => found.isVisible(), WAIT).toBe(true)
    expect(await page.getByTestId('admin-users').innerText()).toContain(message(code, 'admin.users.tagAdmin'))
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-admin-accounts`)

    // the account: its facts, actions and sections in the language, its organization's role too
    await found.click()
    await expect.poll(() => page.getByTestId('admin-user-email').textContent(), WAIT).toBe(email)
    await expect.poll(() => page.locator('#admin-actions-heading').textContent(), WAIT).toBe(message(code, 'admin.user.actions'))
    expect(await page.locator('main').innerText()).toContain(message(code, 'orgs.role.owner'))
    expect(await englishLeft(page, code, ADMIN_KEYS)).toEqual([])
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-admin-account`)

    // the organization list: its member count in the language's plural form for 1
    await page.goto(`${e2e.stack.url}/admin/orgs`)
    await expect.poll(() => page.locator('#orgs-heading').textContent(), WAIT).toBe(message(code, 'admin.orgs.heading'))
    const row = page.getByTestId('admin-orgs').getByRole('listitem').filter({ hasText: `Acme Rockets ${code}` })
    await expect.poll(() => row.innerText(), WAIT).toContain(counted(code, 'admin.orgs.members', 1))
    await checkLayout(page, code)

    // the sign-ups per hour: the table's caption and column headers in the language, this hour's sign-ups counted
    await page.getByRole('link', { name: message(code, 'admin.nav.signups') }).click()
    await expect.poll(() => page.locator('#signups-heading').textContent(), WAIT).toBe(message(code, 'admin.signups.heading'))
    expect(await page.locator('[data-testid="admin-signups"] caption').textContent()).toBe(message(code, 'admin.signups.caption'))
    expect(await page.locator('[data-testid="admin-signups"] thead th').allTextContents()).toEqual(['hour', 'signups', 'failed'].map((key) => message(code, `admin.signups.${key}`)))
    // this file's sign-ups are in the last hour or two, whichever hour the clock turned to meanwhile
    const signups = await page.locator('[data-testid="admin-signups"] tbody tr td:first-of-type .figure').allTextContents()
    expect(signups.reduce((sum, n) => sum + Number(n), 0)).toBeGreaterThanOrEqual(1)
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-admin-signups`)
    expect(csp).toEqual([])
  })
})
