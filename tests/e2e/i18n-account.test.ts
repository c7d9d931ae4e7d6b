/**
 * The account console's parts and the API-token page in each language (docs/i18n.md), in Chromium at
 * 390 px, against one stack for the whole file: headings, the console's navigation and the security
 * activity in the language's words, none of a handful of English sentences left, `lang` and `dir`
 * on the page, axe clean, no text wider than its box. Screenshots go to test-results/, and with
 * UPDATE_SCREENSHOTS=1 the account overview's also to docs/screenshots/<locale>/account.png.
 */
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { ROOT } from '../helpers/build'
import { freshEmail, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'
import { BROWSER_LOCALES, message, overflowing, type Locale } from './i18n-checks'

const UPDATE = process.env.UPDATE_SCREENSHOTS === '1'

const e2e = useE2eStack({}, { browsers: [] })

/** Sentences of the account console (account.*, activity.*) and of the tokens page that must not be left in English. */
const ACCOUNT_KEYS = [
  'account.nav.overview',
  'account.nav.security',
  'account.nav.sessions',
  'account.overview.heading',
  'account.overview.security',
  'account.sections.devices',
  'account.sessions.heading',
  'account.sessions.noOthers',
  'account.activity.heading',
  'account.twoStep.setUp',
  'account.passkeys.intro',
  'account.data.download',
  'account.delete.start',
  'account.email.intro',
  'activity.signedUp',
]
const TOKEN_KEYS = ['tokens.create.heading', 'tokens.create.ipsHint', 'tokens.listHeading', 'tokens.verify.heading', 'tokens.verify.privilegesHint', 'tokens.raw.once', 'tokens.item.rotate', 'tokens.privileges.demo']

/** The English sentences among `keys` that the page shows although the language has its own words for them. */
async function englishLeft(page: Page, code: Locale, keys: readonly string[]): Promise<string[]> {
  const text = await page.evaluate(() => document.body.innerText)
  return keys.filter((key) => message(code, key) !== message('en', key) && text.includes(message('en', key))).map((key) => `${key}: ${message('en', key)}`)
}

/** The checks every page is held to in every language. */
async function checkLayout(page: Page, code: Locale): Promise<void> {
  expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([code, code === 'ar' ? 'rtl' : 'ltr'])
  expect(await seriousA11yViolations(page)).toEqual([])
  expect(await overflowing(page)).toEqual([])
}

describe('the account and API-token pages in each language', () => {
  it.each(BROWSER_LOCALES)('%s: each part of the account console and the tokens page read in the language, at 390 px', async (code) => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    const csp = watchCsp(page)
    // signed up in English (the helper knows its labels), then the person chooses the language
    await signUpInBrowser(page, e2e.stack.url, freshEmail(`i18n-account-${code}`))
    await browser.context.addCookies([{ name: 'locale', value: code, url: e2e.stack.url }])
    await page.setViewportSize({ width: 390, height: 844 })

    await page.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe(message(code, 'account.title'))
    await expect.poll(() => page.locator('#summary-heading').textContent(), WAIT).toBe(message(code, 'account.overview.heading'))
    // the console's navigation in the language, the open part marked
    const nav = page.locator('nav.account-nav')
    expect(await nav.getAttribute('aria-label')).toBe(message(code, 'account.sectionsNav'))
    expect(await nav.locator('[aria-current="page"]').textContent()).toBe(message(code, 'account.nav.overview'))
    expect(await englishLeft(page, code, ACCOUNT_KEYS)).toEqual([])
    await checkLayout(page, code)
    const path = await saveScreenshot(page, `i18n-${code}-account`)
    if (UPDATE) {
      mkdirSync(join(ROOT, 'docs', 'screenshots', code), { recursive: true })
      copyFileSync(path, join(ROOT, 'docs', 'screenshots', code, 'account.png'))
    }

    await page.goto(`${e2e.stack.url}/account/security`)
    // the security activity in the language's words: the account was just created
    await expect.poll(() => page.locator('.events .what').allTextContents(), WAIT).toContain(message(code, 'activity.signedUp'))
    await expect.poll(() => page.locator('#two-step-heading').textContent(), WAIT).toBe(message(code, 'secondFactor.heading'))
    expect(await nav.locator('[aria-current="page"]').textContent()).toBe(message(code, 'account.nav.security'))
    expect(await englishLeft(page, code, ACCOUNT_KEYS)).toEqual([])
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-account-security`)

    await page.goto(`${e2e.stack.url}/account/sessions`)
    await expect.poll(() => page.locator('#sessions-heading').textContent(), WAIT).toBe(message(code, 'account.sessions.heading'))
    expect(await englishLeft(page, code, ACCOUNT_KEYS)).toEqual([])
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-account-sessions`)

    await page.goto(`${e2e.stack.url}/account/apps`)
    await expect.poll(() => page.locator('#connected-apps-heading').textContent(), WAIT).toBe(message(code, 'account.sections.apps'))
    // the list of connected apps read (none yet): its loading line gone
    await expect.poll(() => page.locator('#connected-apps p[role="status"]').count(), WAIT).toBe(0)
    expect(await englishLeft(page, code, ACCOUNT_KEYS)).toEqual([])
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-account-apps`)

    await page.goto(`${e2e.stack.url}/account/data`)
    await expect.poll(() => page.locator('#your-data-heading').textContent(), WAIT).toBe(message(code, 'account.sections.data'))
    expect(await englishLeft(page, code, ACCOUNT_KEYS)).toEqual([])
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-account-data`)

    await page.goto(`${e2e.stack.url}/tokens`)
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe(message(code, 'tokens.title'))
    await page.locator('#token-name').fill('billing export')
    await page.locator('form[aria-labelledby="create-heading"] button[type="submit"]').click()
    // the raw token shown once, and the new token's card, both in the language
    await expect.poll(() => page.locator('#raw-heading').textContent(), WAIT).toBe(message(code, 'tokens.raw.newHeading'))
    await expect.poll(() => page.locator('li.token').count(), WAIT).toBe(1)
    expect(await englishLeft(page, code, TOKEN_KEYS)).toEqual([])
    await checkLayout(page, code)
    await saveScreenshot(page, `i18n-${code}-tokens`)
    expect(csp).toEqual([])
  })
})
