/**
 * The core forms with JavaScript turned off in Chromium: each is a plain HTML form post that passes
 * the CSRF guard with its double-submit token and ends on the page a person expects. Chromium sends
 * the real Origin only when the page's referrer policy allows it (with `no-referrer` it sends
 * `Origin: null` on a same-origin post), so these tests also hold the security headers to that.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { launchBrowser, saveScreenshot, type Browser } from '../helpers/browser'
import { magicLinkOf } from '../helpers/smtp'
import { freshEmail, mailTo, PASSWORD, seriousA11yViolations, signInInBrowser, useE2eStack, WAIT } from './auth-stack'

// each test launches its own browser (a fresh profile: no cookies from the one before)
const e2e = useE2eStack({}, { browsers: [] })
/** the running test's browser */
let browser: Browser | undefined

async function noJsPage(): Promise<Page> {
  browser = await e2e.launchForTest({ javaScriptEnabled: false })
  return browser.newPage()
}

/** What the browser shows, as text; a raw JSON answer shows its braces here. */
const bodyText = (page: Page) => page.locator('body').innerText()

async function signUp(page: Page, email: string): Promise<void> {
  await page.goto(`${e2e.stack.url}/signup`)
  await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Repeat the password').fill(PASSWORD)
  await page.getByLabel('I accept the terms of service').check()
  await page.getByRole('button', { name: 'Create account' }).click()
  // the flag the account page reads to ask for the address to be confirmed
  await page.waitForURL(`${e2e.stack.url}/account?signedUp=1`)
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${e2e.stack.url}/login`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

async function expectSignedInAccountPage(page: Page): Promise<void> {
  expect(new URL(page.url()).pathname).toBe('/account')
  expect(await bodyText(page)).toContain('You are signed in')
  // the header's sign-out form (components/AccountMenu.vue), shown in the header without JavaScript
  expect(await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
  expect((await browser!.context.cookies(e2e.stack.url)).some((c) => c.name === '__Secure-a')).toBe(true)
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(`${e2e.stack.url}/login?signedOut=1`)
  expect(await bodyText(page)).toContain('You have signed out.')
  expect((await browser!.context.cookies(e2e.stack.url)).some((c) => c.name === '__Secure-a')).toBe(false)
}

describe('the core forms work without JavaScript', () => {
  it('pages send a same-origin referrer, so a form post carries the real Origin', async () => {
    const page = await noJsPage()
    const response = await page.goto(`${e2e.stack.url}/login`)
    const policy = response?.headers()['referrer-policy']
    expect(['same-origin', 'strict-origin', 'strict-origin-when-cross-origin']).toContain(policy)
  })

  it('signs up, signs out and signs in again, each ending on the page a person expects', async () => {
    const page = await noJsPage()
    const email = freshEmail('nojs')
    await signUp(page, email)
    await expectSignedInAccountPage(page)
    expect(await bodyText(page)).toContain('Check your inbox: we sent a link to confirm your address.')
    await saveScreenshot(page, 'no-js-signed-up')
    await signOut(page)
    await signIn(page, email, PASSWORD)
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expectSignedInAccountPage(page)
    await saveScreenshot(page, 'no-js-signed-in')
  })

  it('a signed-in person who opens the sign-in or start page is sent on by the server: to a safe returnTo, else the account', async () => {
    const page = await noJsPage()
    const email = freshEmail('nojs-signed-in')
    await signUp(page, email)
    await page.goto(`${e2e.stack.url}/login`)
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expectSignedInAccountPage(page)
    await page.goto(`${e2e.stack.url}/`)
    await page.waitForURL(`${e2e.stack.url}/account`)
    await page.goto(`${e2e.stack.url}/login?returnTo=%2Ftokens`)
    await page.waitForURL(`${e2e.stack.url}/tokens`)
    // never off the site, whatever returnTo says
    await page.goto(`${e2e.stack.url}/login?returnTo=%2F%2Fevil.example`)
    await page.waitForURL(`${e2e.stack.url}/account`)
    // signed out, the same pages show their forms again
    await signOut(page)
    await page.goto(`${e2e.stack.url}/login`)
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).toBe(true)
    await page.goto(`${e2e.stack.url}/`)
    expect(new URL(page.url()).pathname).toBe('/')
    expect(await page.getByRole('link', { name: 'Create an account' }).isVisible()).toBe(true)
  })

  it('a session ended elsewhere still gets the sign-in form, not a trip to the account', async () => {
    const page = await noJsPage()
    const email = freshEmail('nojs-ended')
    await signUp(page, email)
    // another device, with JavaScript, signs every other session out
    const other = await launchBrowser()
    try {
      const laptop = await other.newPage()
      await signInInBrowser(laptop, e2e.stack.url, email)
      await laptop.goto(`${e2e.stack.url}/account/sessions`)
      await laptop.getByRole('button', { name: 'End all other sessions' }).click()
      await laptop.getByRole('button', { name: 'Confirm' }).click()
      await expect.poll(() => laptop.getByText('1 other session was ended.').isVisible(), WAIT).toBe(true)
    } finally {
      await other.close()
    }
    await page.goto(`${e2e.stack.url}/login`)
    expect(new URL(page.url()).pathname).toBe('/login')
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).toBe(true)
  })

  it('shows a wrong password on the sign-in page', async () => {
    const page = await noJsPage()
    await signIn(page, freshEmail('nobody'), 'definitely the wrong one')
    await page.waitForURL(/\/login\?(?:.*&)?error=invalid_credentials$/)
    expect(await bodyText(page)).toContain('The email or password is incorrect.')
  })

  it('forgot password says to check the mail; the mailed link sets a new password that signs in', async () => {
    const page = await noJsPage()
    const email = freshEmail('nojs-reset')
    await signUp(page, email)
    await signOut(page)
    await page.goto(`${e2e.stack.url}/forgot-password`)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await page.waitForURL(`${e2e.stack.url}/forgot-password?error=sent`)
    expect(await bodyText(page)).toContain('If an account exists for that address')
    const link = magicLinkOf(await mailTo(e2e.stack.smtp, email, '/reset-password'))
    await page.goto(link.toString())
    const newPassword = 'a brand new passphrase without script'
    await page.getByLabel('New password', { exact: true }).fill(newPassword)
    await page.getByLabel('Repeat the new password').fill(newPassword)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(`${e2e.stack.url}/login?reset=1`)
    expect(await bodyText(page)).toContain('Your password was changed.')
    await signIn(page, email, newPassword)
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expectSignedInAccountPage(page)
  })

  it('a form whose token no longer matches gets a page saying what to do, not JSON; sent again from that page it signs in', async () => {
    const page = await noJsPage()
    const email = freshEmail('nojs-stale')
    await signUp(page, email)
    await signOut(page)
    await page.goto(`${e2e.stack.url}/login`)
    // the person cleared this site's cookies while the form was open: its token matches nothing now
    await browser!.context.clearCookies({ name: '__Host-csrf' })
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), WAIT).toBe('The form could not be sent')
    const text = await bodyText(page)
    expect(text).not.toContain('{')
    expect(text).toContain('reload')
    await saveScreenshot(page, 'no-js-form-refused')
    await page.getByRole('link', { name: 'Back to the sign-in page' }).click()
    await page.waitForURL(`${e2e.stack.url}/login`)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expectSignedInAccountPage(page)
  })

  it('the refusal page is accessible', async () => {
    // axe runs as page script, so this browser has JavaScript; form.submit() still posts natively
    browser = await e2e.launchForTest()
    const page = await browser.newPage()
    await page.goto(`${e2e.stack.url}/forgot-password`)
    await browser.context.clearCookies({ name: '__Host-csrf' })
    await page.evaluate(() => document.querySelector('form')?.submit())
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), WAIT).toBe('The form could not be sent')
    expect(await page.getByRole('link', { name: 'Back to the password reset page' }).getAttribute('href')).toBe('/forgot-password')
    expect(await seriousA11yViolations(page)).toEqual([])
  })
})
