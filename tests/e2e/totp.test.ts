/**
 * Two-step sign-in in Chromium: enrol TOTP from the secret the account page shows, sign out, sign
 * in with the password and the second-factor step (an authenticator code, then a recovery code);
 * axe finds no serious or critical violation on the new screens, and the page CSP holds.
 */
import { Secret, TOTP } from 'otpauth'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { confirmEmailInBrowser, freshEmail, mailTo, PASSWORD, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'
import { magicLinkOf } from '../helpers/smtp'

const e2e = useE2eStack()

const codeAt = (secret: string, stepOffset: number) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + stepOffset * 30_000 })

async function passwordStep(page: Page, email: string) {
  await page.goto(`${e2e.stack.url}/login`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  const heading = page.getByRole('heading', { name: 'Two-step sign-in' })
  await expect.poll(() => heading.isVisible(), WAIT).toBe(true)
  // focus moves to the new step so a screen reader announces it
  await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe('second-factor-heading')
}

/** From the account's security part: set up TOTP from the secret shown, turn it on, save the codes; the secret and the codes. */
async function enrolInBrowser(page: Page, onEachScreen: () => Promise<void> = async () => {}): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.getByRole('button', { name: 'Set up two-step sign-in' }).click()
  const secretText = page.getByTestId('totp-secret')
  await expect.poll(() => secretText.isVisible(), WAIT).toBe(true)
  await onEachScreen()
  const secret = ((await secretText.textContent()) ?? '').replace(/\s/g, '')
  await page.getByLabel('Code from the app', { exact: true }).fill(codeAt(secret, 0))
  await page.getByRole('button', { name: 'Turn on' }).click()
  const codes = page.getByTestId('recovery-codes').locator('li')
  await expect.poll(() => codes.count(), WAIT).toBe(10)
  await onEachScreen()
  const recoveryCodes = (await codes.allTextContents()).map((c) => c.trim())
  return { secret, recoveryCodes }
}

async function signOut(page: Page) {
  await page.goto(`${e2e.stack.url}/account`)
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(/\/login/)
}

describe('two-step sign-in in the browser', () => {
  it('enrols TOTP from the secret shown, then signs in with an authenticator code and with a recovery code', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const email = freshEmail('totp')
    await signUpInBrowser(page, e2e.stack.url, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)

    let qrCodes = 0
    const { secret, recoveryCodes } = await enrolInBrowser(page, async () => {
      qrCodes += await page.getByRole('img', { name: 'QR code for your authenticator app' }).locator('svg').count()
      expect(await seriousA11yViolations(page)).toEqual([])
    })
    expect(qrCodes).toBe(1)
    const recovery = recoveryCodes[0]!
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Download codes (.txt)' }).click()
    expect((await download).suggestedFilename()).toBe('recovery-codes.txt')
    await page.getByRole('button', { name: 'I saved my recovery codes' }).click()
    await expect.poll(() => page.getByText('10 recovery codes left.').isVisible(), WAIT).toBe(true)
    await saveScreenshot(page, 'totp-enrolled')

    await signOut(page)
    await passwordStep(page, email)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByLabel('Authentication code').fill(codeAt(secret, 1))
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)

    await signOut(page)
    await passwordStep(page, email)
    await page.getByRole('button', { name: 'Use a recovery code' }).click()
    await page.getByLabel('Recovery code').fill(recovery)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    await page.goto(`${e2e.stack.url}/account/security`)
    await expect.poll(() => page.getByText('9 recovery codes left.').isVisible(), WAIT).toBe(true)
    await saveScreenshot(page, 'totp-signed-in-with-recovery-code')
    expect(csp).toEqual([])
  })

  it('reports a wrong code next to the code field', async () => {
    const page = await e2e.browser.newPage()
    const email = freshEmail('totpwrong')
    await signUpInBrowser(page, e2e.stack.url, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)
    const { secret } = await enrolInBrowser(page)
    await page.getByRole('button', { name: 'I saved my recovery codes' }).click()
    await signOut(page)
    await passwordStep(page, email)
    await page.getByLabel('Authentication code').fill('000000' === codeAt(secret, 1) ? '111111' : '000000')
    await page.getByRole('button', { name: 'Continue' }).click()
    const field = page.getByLabel('Authentication code')
    await expect.poll(() => field.getAttribute('aria-invalid'), WAIT).toBe('true')
    expect(await seriousA11yViolations(page)).toEqual([])
  })
  it('asks for an email change on the account page with a recovery code instead of the emailed code, and the link to the new address finishes it', async () => {
    const page = await e2e.browser.newPage()
    const email = freshEmail('totpmail')
    const newEmail = freshEmail('totpmoved')
    await signUpInBrowser(page, e2e.stack.url, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)
    const { recoveryCodes } = await enrolInBrowser(page)
    const recovery = recoveryCodes[0]!
    await page.getByRole('button', { name: 'I saved my recovery codes' }).click()

    // the address lives on the overview
    await page.goto(`${e2e.stack.url}/account`)
    await page.getByRole('button', { name: 'Change email', exact: true }).click()
    const form = page.getByRole('form', { name: 'Or finish here with two-step sign-in' })
    await expect.poll(() => form.isVisible(), WAIT).toBe(true)
    await form.getByLabel('New email address').fill(newEmail)
    await form.getByLabel('Code from the app or a recovery code').fill(recovery)
    expect(await seriousA11yViolations(page)).toEqual([])
    await form.getByRole('button', { name: 'Change email now' }).click()
    // the change waits for the link mailed to the new address (docs/accounts.md)
    const waiting = `We sent a link to ${newEmail[0]}***@example.com: your address changes once you open it.`
    await expect.poll(() => page.getByText(waiting).isVisible(), WAIT).toBe(true)
    const confirmation = await mailTo(e2e.stack.smtp, newEmail, 'reason=CONFIRM_EMAIL_CHANGE&')
    await page.goto(magicLinkOf(confirmation).toString())
    await page.getByRole('button', { name: 'Confirm my email address' }).click()
    await expect.poll(() => page.getByText('Your email address is confirmed.').isVisible(), WAIT).toBe(true)
    await page.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => page.locator('#main').getByText(newEmail).isVisible(), WAIT).toBe(true)
  })
})
