/**
 * Sign-up, sign-out/sign-in, password reset and adaptive MFA in Chromium against the real stack.
 * Each test saves a screenshot of its last page under test-results/.
 */
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { codeOf, magicLinkOf } from '../helpers/smtp'
import { freshEmail, mailTo, PASSWORD, passwordMeterSettled, signInInBrowser, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

// each test launches its own browser (a fresh profile: no cookies from the one before)
const e2e = useE2eStack({}, { browsers: [] })

describe('sign-up and sign-in in the browser', () => {
  it('signs up and lands signed in; the access token is an HttpOnly cookie page JS cannot read', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    const csp = watchCsp(page)
    await signUpInBrowser(page, e2e.stack.url, freshEmail())
    const cookies = await browser.context.cookies(e2e.stack.url)
    const access = cookies.find((c) => c.name === '__Secure-a')
    // Chromium treats http://127.0.0.1 as a secure context, so Secure (and __Secure-) cookies stick
    expect(access).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict' })
    expect(cookies.find((c) => c.name === 'session')?.httpOnly).toBe(true)
    const visible = await page.evaluate(() => document.cookie)
    expect(visible).not.toContain('__Secure-a')
    expect(visible).not.toContain('session=')
    expect(csp).toEqual([])
    await saveScreenshot(page, 'auth-signup-account')
  })

  it('signs out, then signs in again', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    const email = freshEmail()
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${e2e.stack.url}/login?signedOut=1`)
    await expect.poll(() => page.getByText('You have signed out.').isVisible(), WAIT).toBe(true)
    expect((await browser.context.cookies(e2e.stack.url)).some((c) => c.name === '__Secure-a')).toBe(false)
    await signInInBrowser(page, e2e.stack.url, email)
    await saveScreenshot(page, 'auth-signin-again')
  })

  it('shows a wrong password next to the form and keeps the user on the page', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    const email = freshEmail()
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill('definitely the wrong one')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toContain('The email or password is incorrect.')
    expect(new URL(page.url()).pathname).toBe('/login')
    await saveScreenshot(page, 'auth-wrong-password')
  })
})

describe('password reset', () => {
  it('forgot -> mailed link -> new password -> sign in with it', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    const email = freshEmail('reset')
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.goto(`${e2e.stack.url}/forgot-password`)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await expect.poll(() => page.getByText('If an account exists for that address').isVisible(), WAIT).toBe(true)
    const mail = await mailTo(e2e.stack.smtp, email, '/reset-password')
    const link = magicLinkOf(mail)
    expect(link.origin).toBe(e2e.stack.url)
    await page.goto(link.toString())
    const newPassword = 'a brand new passphrase 2026'
    await page.getByLabel('New password', { exact: true }).fill(newPassword)
    await page.getByLabel('Repeat the new password').fill(newPassword)
    await passwordMeterSettled(page)
    await expect.poll(() => page.getByRole('button', { name: 'Change password' }).isEnabled(), WAIT).toBe(true)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(`${e2e.stack.url}/login?reset=1`)
    await signInInBrowser(page, e2e.stack.url, email, newPassword)
    await saveScreenshot(page, 'auth-reset-signed-in')
    // the old password no longer works
    expect(newPassword).not.toBe(PASSWORD)
  })
})

describe('adaptive MFA', () => {
  it('a new user agent triggers the MFA mail; link + code sign the browser in again', async () => {
    const browser = await e2e.launchForTest()
    const page = await browser.newPage()
    const email = freshEmail('mfa')
    await signUpInBrowser(page, e2e.stack.url, email)
    // same device cookie, different browser family and OS: fingerprint drift (anomaly check 9, iam/features/anomalies/evaluate-anomalies.ts)
    await browser.context.setExtraHTTPHeaders({ 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0' })
    await page.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('status').filter({ hasText: /email/i }).count(), { timeout: 15_000 }).toBeGreaterThan(0)
    const mail = await mailTo(e2e.stack.smtp, email, '/auth/mfa')
    await page.goto(magicLinkOf(mail).toString())
    await page.getByLabel('Code', { exact: true }).fill(codeOf(mail))
    await expect.poll(() => page.getByRole('button', { name: 'Confirm' }).isEnabled(), WAIT).toBe(true)
    await page.getByRole('button', { name: 'Confirm' }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
    await saveScreenshot(page, 'auth-mfa-signed-in')
  })
})
