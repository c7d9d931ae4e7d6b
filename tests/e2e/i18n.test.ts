/**
 * The sign-up, OpenID consent and sign-in pages in each language (docs/i18n.md), in Chromium at 390 px: the page's
 * `lang` and `dir`, a message of the language's catalogue on screen, axe clean, no text wider than
 * its box, Arabic laid out right to left; the `locale` cookie, Accept-Language on a first visit,
 * OpenID `ui_locales` and the language switcher each choose the language. Screenshots go to
 * test-results/, and with UPDATE_SCREENSHOTS=1 also to docs/screenshots/<locale>/.
 */
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot, type Browser } from '../helpers/browser'
import { ROOT } from '../helpers/build'
import { authorizationUrl, startOpStack } from '../helpers/oidc-op'
import { confirmEmailInBrowser, freshEmail, PASSWORD, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'
import { BROWSER_LOCALES, message, overflowing, type Locale } from './i18n-checks'

const UPDATE = process.env.UPDATE_SCREENSHOTS === '1'

const e2e = useE2eStack({}, { start: startOpStack })

/** The account with two-step sign-in whose password step leads to the second-factor page. */
let twoStepEmail = ''
const codeAt = (secret: string) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate()

/** Made once, by the first test that needs it (expect.poll runs only inside a test). */
let twoStepReady: Promise<void> | undefined
function ensureTwoStepAccount(): Promise<void> {
  twoStepReady ??= (async () => {
    const page = await e2e.browser.newPage()
    twoStepEmail = freshEmail('i18n-totp')
    await signUpInBrowser(page, e2e.stack.url, twoStepEmail)
    await confirmEmailInBrowser(page, e2e.stack.smtp, twoStepEmail)
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click()
    const secretText = page.getByTestId('totp-secret')
    await expect.poll(() => secretText.isVisible(), WAIT).toBe(true)
    const secret = ((await secretText.textContent()) ?? '').replace(/\s/g, '')
    await page.getByLabel('Code from the app', { exact: true }).fill(codeAt(secret))
    await page.getByRole('button', { name: 'Turn on' }).click()
    await expect.poll(() => page.getByTestId('recovery-codes').locator('li').count(), WAIT).toBe(10)
    await page.close()
  })()
  return twoStepReady
}

/** A browser of its own whose `locale` cookie names `code` (the person chose it before). */
async function browserIn(code: Locale): Promise<Browser> {
  const browser = await e2e.launchForTest()
  await browser.context.addCookies([{ name: 'locale', value: code, url: e2e.stack.url }])
  return browser
}

/** Where the words of a field's label sit against the field: the text's box, not the block label's. */
async function labelTextAgainstField(page: Page, id: string): Promise<{ textLeft: number; textRight: number; fieldLeft: number; fieldRight: number }> {
  return page.evaluate((fieldId) => {
    const label = document.querySelector(`label[for="${fieldId}"]`)!
    const range = document.createRange()
    range.selectNodeContents(label)
    const text = range.getBoundingClientRect()
    const field = document.getElementById(fieldId)!.getBoundingClientRect()
    return { textLeft: text.left, textRight: text.right, fieldLeft: field.left, fieldRight: field.right }
  }, id)
}

/** What every page in every language is held to; `heading` is the catalogue key of a text on screen. */
async function checkPage(page: Page, code: Locale, name: string, selector: string, key: string): Promise<void> {
  await expect.poll(() => page.locator(selector).first().textContent(), WAIT).toBe(message(code, key))
  expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([code, code === 'ar' ? 'rtl' : 'ltr'])
  expect(await seriousA11yViolations(page)).toEqual([])
  expect(await overflowing(page)).toEqual([])
  const box = await labelTextAgainstField(page, 'email')
  if (code === 'ar') {
    // right to left: the label's words start at the field's right edge
    expect(Math.abs(box.textRight - box.fieldRight)).toBeLessThanOrEqual(2)
    expect(box.textLeft).toBeGreaterThan(box.fieldLeft + 2)
  } else {
    expect(Math.abs(box.textLeft - box.fieldLeft)).toBeLessThanOrEqual(2)
  }
  const path = await saveScreenshot(page, `i18n-${code}-${name}`)
  if (UPDATE) {
    mkdirSync(join(ROOT, 'docs', 'screenshots', code), { recursive: true })
    copyFileSync(path, join(ROOT, 'docs', 'screenshots', code, `${name}.png`))
  }
}

describe('the sign-up and sign-in pages in each language', () => {
  it.each(BROWSER_LOCALES)('%s: sign-up, the OpenID consent page, a wrong password and the second-factor step read in the language, at 390 px', async (code) => {
    await ensureTwoStepAccount()
    const browser = await browserIn(code)
    const page = await browser.newPage()
    const csp = watchCsp(page)
    await page.setViewportSize({ width: 390, height: 844 })

    await page.goto(`${e2e.stack.url}/signup`)
    await checkPage(page, code, 'sign-up', 'h1', 'signup.title')
    const email = freshEmail(`i18n-${code}`)
    await page.locator('#name').fill('Ada Lovelace')
    await page.locator('#email').fill(email)
    await page.locator('#password').fill(PASSWORD)
    await page.locator('#confirmedPassword').fill(PASSWORD)
    await page.locator('#termsConsent').check()
    await page.locator('main form button[type="submit"]').click()
    await page.waitForURL(`${e2e.stack.url}/account`)

    // signed in, an app registered by itself (a third party: always asked) reads the consent page in the language
    const rp = await e2e.stack.register({ name: `App ${code}`, redirectUris: ['http://127.0.0.1:9/cb'] })
    await page.goto((await authorizationUrl(e2e.stack, rp)).url)
    await page.waitForURL(/\/interaction\//)
    const allow = page.getByRole('button', { name: message(code, 'interaction.allow'), exact: true })
    await expect.poll(() => allow.isVisible(), WAIT).toBe(true)
    expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([code, code === 'ar' ? 'rtl' : 'ltr'])
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflowing(page)).toEqual([])
    const consent = await saveScreenshot(page, `i18n-${code}-consent`)
    if (UPDATE) {
      mkdirSync(join(ROOT, 'docs', 'screenshots', code), { recursive: true })
      copyFileSync(consent, join(ROOT, 'docs', 'screenshots', code, 'consent.png'))
    }

    // signed out again, the language stays: it is the cookie, not the session
    await browser.context.clearCookies()
    await browser.context.addCookies([{ name: 'locale', value: code, url: e2e.stack.url }])
    await page.goto(`${e2e.stack.url}/login`)
    // the wrong password on the new account: failures on the two-step one would hold its sign-ins back
    await page.locator('#email').fill(email)
    await page.locator('#password').fill('not the password at all')
    await page.locator('main form button[type="submit"]').click()
    await checkPage(page, code, 'sign-in-wrong-password', '.alert[role="alert"]', 'formError.invalidCredentials')

    await page.locator('#email').fill(twoStepEmail)
    await page.locator('#password').fill(PASSWORD)
    await page.locator('main form button[type="submit"]').click()
    await expect.poll(() => page.locator('#second-factor-heading').textContent(), WAIT).toBe(message(code, 'secondFactor.heading'))
    await expect.poll(() => page.locator('label[for="totp-code"]').textContent(), WAIT).toBe(message(code, 'secondFactor.codeLabel'))
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflowing(page)).toEqual([])
    const path = await saveScreenshot(page, `i18n-${code}-second-factor`)
    if (UPDATE) copyFileSync(path, join(ROOT, 'docs', 'screenshots', code, 'second-factor.png'))
    expect(csp).toEqual([])
  })

  it('the server renders lang and dir of the language Accept-Language asks for on a first visit', async () => {
    const arabic = await (await fetch(`${e2e.stack.url}/login`, { headers: { 'accept-language': 'ar-EG,ar;q=0.9,en;q=0.5' } })).text()
    expect(/<html[^>]*>/.exec(arabic)?.[0]).toMatch(/lang="ar"[^>]*dir="rtl"|dir="rtl"[^>]*lang="ar"/)
    expect(arabic).toContain(message('ar', 'login.title'))
    const german = await (await fetch(`${e2e.stack.url}/login`, { headers: { 'accept-language': 'de-CH, en;q=0.5' } })).text()
    expect(/<html[^>]*>/.exec(german)?.[0]).toContain('lang="de"')
    // the person's choice (the cookie) wins over the browser's language
    const chosen = await (await fetch(`${e2e.stack.url}/login`, { headers: { 'accept-language': 'de', cookie: 'locale=ja' } })).text()
    expect(/<html[^>]*>/.exec(chosen)?.[0]).toContain('lang="ja"')
    // a language the pages do not have falls back to English
    const other = await (await fetch(`${e2e.stack.url}/login`, { headers: { 'accept-language': 'sw' } })).text()
    expect(/<html[^>]*>/.exec(other)?.[0]).toMatch(/lang="en"[^>]*dir="ltr"|dir="ltr"[^>]*lang="en"/)
  })

  it('ui_locales=de on an authorization request shows the interaction and the sign-in page in German', async () => {
    const rp = await e2e.stack.register({ name: 'Sprach-App', redirectUris: ['http://127.0.0.1:9/cb'] })
    const { url } = await authorizationUrl(e2e.stack, rp, { ui_locales: 'tlh de-CH fr' })
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    await page.goto(url)
    await page.waitForURL(/\/interaction\//)
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe('Bei Sprach-App anmelden')
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de')
    await page.locator('main a.button').click()
    await page.waitForURL(/\/login/)
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe(message('de', 'login.title'))
    expect((await browser.context.cookies()).find((c) => c.name === 'locale')?.value).toBe('de')
  })

  it('the switcher changes the language in place, and the choice stays after a reload', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    await page.goto(`${e2e.stack.url}/login`)
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe(message('en', 'login.title'))
    // a labelled native select, reached and changed from the keyboard
    const select = page.getByLabel(message('en', 'language.label')).last()
    expect(await select.getAttribute('id')).toBe('page-language')
    await select.focus()
    await select.selectOption('fr')
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe(message('fr', 'login.title'))
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr')
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'locale')
    expect(cookie).toMatchObject({ value: 'fr', path: '/', sameSite: 'Lax' })
    // a year, give or take the seconds this test took
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(364 * 24 * 3600_000)
    await page.reload()
    await expect.poll(() => page.locator('h1').textContent(), WAIT).toBe(message('fr', 'login.title'))
    expect(await page.locator('#page-language').inputValue()).toBe('fr')
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
