/** Changing the email address through the custom-MFA flow, and the time zone of the mails, in the browser. */
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { codeOf, magicLinkOf } from '../helpers/smtp'
import { freshEmail, mailTo, seriousA11yViolations, signInInBrowser, signUpInBrowser, useE2eStack, WAIT } from './auth-stack'

const e2e = useE2eStack()

describe('account page', () => {
  it('changes the email address: confirmation mail -> link -> new address + code -> the change waits for the link mailed to the new address -> sign in with it', async () => {
    const page = await e2e.browser.newPage()
    const oldEmail = freshEmail('old')
    const newEmail = freshEmail('new')
    await signUpInBrowser(page, e2e.stack.url, oldEmail)
    await page.getByRole('button', { name: 'Change email' }).click()
    await expect.poll(() => page.getByText(/We sent a confirmation link to o\*\*\*@example\.com/).isVisible(), WAIT).toBe(true)
    const mail = await mailTo(e2e.stack.smtp, oldEmail, '/auth/confirm')
    await page.goto(magicLinkOf(mail).toString())
    await page.getByLabel('New email address').fill(newEmail)
    await page.getByLabel('Code from the email').fill(codeOf(mail))
    await page.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByText(/your address changes once you open it/).isVisible(), WAIT).toBe(true)

    // nothing changed yet: the account page shows where the link went
    await page.goto(`${e2e.stack.url}/account`)
    const waiting = `We sent a link to ${newEmail[0]}***@example.com: your address changes once you open it.`
    await expect.poll(() => page.getByText(waiting).isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.locator('dd').filter({ hasText: oldEmail }).isVisible(), WAIT).toBe(true)
    await saveScreenshot(page, 'account-email-change-pending')

    // the link mailed to the new address moves the account
    const confirmation = await mailTo(e2e.stack.smtp, newEmail, 'reason=CONFIRM_EMAIL_CHANGE&')
    await page.goto(magicLinkOf(confirmation).toString())
    await page.getByRole('button', { name: 'Confirm my email address' }).click()
    await expect.poll(() => page.getByText('Your email address is confirmed.').isVisible(), WAIT).toBe(true)

    await page.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => page.locator('dd').filter({ hasText: newEmail }).isVisible(), WAIT).toBe(true)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await signInInBrowser(page, e2e.stack.url, newEmail)
    await saveScreenshot(page, 'account-email-changed')
  })

  it('a wrong code is reported next to the code field', async () => {
    const page = await e2e.browser.newPage()
    const email = freshEmail('wrongcode')
    await page.goto(`${e2e.stack.url}/login`)
    await page.context().clearCookies()
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.getByRole('button', { name: 'Change email' }).click()
    const mail = await mailTo(e2e.stack.smtp, email, '/auth/confirm')
    await page.goto(magicLinkOf(mail).toString())
    await page.getByLabel('New email address').fill(freshEmail('other'))
    const code = codeOf(mail)
    await page.getByLabel('Code from the email').fill(code === '0000000' ? '1111111' : '0000000')
    await page.getByRole('button', { name: 'Confirm' }).click()
    const field = page.getByLabel('Code from the email')
    await expect.poll(() => field.getAttribute('aria-invalid'), WAIT).toBe('true')
    const describedBy = (await field.getAttribute('aria-describedby')) ?? ''
    expect(await page.locator(`#${describedBy.split(' ').pop()}`).textContent()).toContain('not valid')
    await saveScreenshot(page, 'account-wrong-code')
  })

  it('chooses the time zone of the mails by keyboard at 390 px, keeps it after a reload and offers this device zone', async () => {
    const page = await e2e.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${e2e.stack.url}/login`)
    await page.context().clearCookies()
    await signUpInBrowser(page, e2e.stack.url, freshEmail('zone'))
    const field = page.getByLabel('Zone for your emails', { exact: true })
    await expect.poll(() => field.isVisible(), WAIT).toBe(true)
    // the device's zone (the test browser's) is the account's from the sign-up: no shortcut to it yet
    const device = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
    await expect.poll(() => page.getByTestId('time-zone-current').textContent(), WAIT).toBe(`Your emails use: ${device}`)
    expect(await page.getByTestId('time-zone-device').count()).toBe(0)

    await field.focus()
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type('Asia/Kathmandu')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByText('Time zone saved: your emails now give their times in Asia/Kathmandu.').isVisible(), WAIT).toBe(true)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'account-time-zone-390')

    await page.reload()
    await expect.poll(() => page.getByTestId('time-zone-current').textContent(), WAIT).toBe('Your emails use: Asia/Kathmandu')
    // the shortcut back to the device's zone, reached by Tab from the field past Save
    const shortcut = page.getByRole('button', { name: `Use this device's zone (${device})` })
    await expect.poll(() => shortcut.isVisible(), WAIT).toBe(true)
    await field.focus()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    expect(await shortcut.evaluate((el) => el === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByTestId('time-zone-current').textContent(), WAIT).toBe(`Your emails use: ${device}`)

    // a name no zone has is said at the field, with what to do
    await field.fill('Mars/Olympus_Mons')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('#time-zone-error').textContent(), WAIT).toContain('Pick one from the list')
    expect(await field.getAttribute('aria-invalid')).toBe('true')
  })
})
