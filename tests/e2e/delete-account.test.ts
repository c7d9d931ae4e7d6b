/**
 * Deleting the account in the browser: the account page's danger zone mails a confirmation link,
 * the link's page disables the account and signs the browser out, and the undo link's page
 * restores it so that the password signs in again. Without that mail, the sign-in page tells the
 * right password that the account is scheduled for deletion and sends the restore link again.
 * axe on each new page.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { magicLinkOf, recipients } from '../helpers/smtp'
import { freshEmail, mailTo, PASSWORD, seriousA11yViolations, signInInBrowser, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack()

describe('deleting the account', () => {
  it('account page -> mailed link -> confirm -> signed out and told when; then the undo link -> signs in again', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const email = freshEmail('delete')
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.goto(`${e2e.stack.url}/account/data`)

    await page.getByRole('button', { name: 'Delete my account' }).click()
    await page.getByRole('group', { name: /Delete your account\?/ }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByTestId('delete-account-sent').isVisible(), WAIT).toBe(true)
    expect(await page.getByTestId('delete-account-sent').textContent()).toMatch(/Check your inbox\..*d\*\*\*@example\.com/)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'delete-account-requested')

    // the account still works until the link is used
    await page.reload()
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)

    await page.goto(magicLinkOf(await mailTo(e2e.stack.smtp, email, '/auth/delete-account?')).toString())
    const confirm = page.getByRole('button', { name: 'Confirm the deletion' })
    await expect.poll(() => confirm.isEnabled(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await confirm.click()
    await expect.poll(() => page.getByRole('heading', { name: 'Your account is disabled' }).isVisible(), WAIT).toBe(true)
    const disabled = (await page.getByTestId('account-disabled').textContent()) ?? ''
    expect(disabled).toContain('You are signed out')
    expect(disabled).toMatch(/will be erased on .+\. Until then, the link in the mail we just sent you restores it\./)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'delete-account-disabled')

    // signed out: the account page asks for a sign-in, and the password no longer signs in
    await page.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('link', { name: 'Sign in' }).first().isVisible(), WAIT).toBe(true)
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0)

    await page.goto(magicLinkOf(await mailTo(e2e.stack.smtp, email, '/auth/undo-delete-account?')).toString())
    const restore = page.getByRole('button', { name: 'Restore my account' })
    await expect.poll(() => restore.isEnabled(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await restore.click()
    await expect.poll(() => page.getByRole('heading', { name: 'Your account is restored' }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'delete-account-restored')

    await signInInBrowser(page, e2e.stack.url, email)
    expect(csp).toEqual([])
    await page.close()
  })

  /** The account console's request (its data part) and the mailed confirmation: the browser ends signed out. */
  async function deleteInBrowser(page: Page, email: string): Promise<void> {
    await page.goto(`${e2e.stack.url}/account/data`)
    await page.getByRole('button', { name: 'Delete my account' }).click()
    await page.getByRole('group', { name: /Delete your account\?/ }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByTestId('delete-account-sent').isVisible(), WAIT).toBe(true)
    await page.goto(magicLinkOf(await mailTo(e2e.stack.smtp, email, '/auth/delete-account?')).toString())
    const confirm = page.getByRole('button', { name: 'Confirm the deletion' })
    await expect.poll(() => confirm.isEnabled(), WAIT).toBe(true)
    await confirm.click()
    await expect.poll(() => page.getByRole('heading', { name: 'Your account is disabled' }).isVisible(), WAIT).toBe(true)
  }

  it('without the mail: the sign-in page says when the account is erased, sends the restore link from the keyboard at 390 px, and the link restores it', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const email = freshEmail('restore')
    await signUpInBrowser(page, e2e.stack.url, email)
    await deleteInBrowser(page, email)

    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${e2e.stack.url}/login`)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    const state = page.getByTestId('deletion-pending')
    await expect.poll(() => state.isVisible(), WAIT).toBe(true)
    // the day in words, in this browser's time zone, of the moment the IAM named
    const day = await page.locator('[data-testid="deletion-pending"] time').evaluate((el) =>
      new Date(el.getAttribute('datetime')!).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric' }),
    )
    expect(day).toMatch(/^\d{1,2} [A-Z][a-z]+ \d{4}$/)
    expect((await page.locator('#deletion-pending').textContent())?.trim()).toBe(`This account is scheduled for deletion on ${day}.`)
    expect(await page.getByText('The email or password is incorrect.').count()).toBe(0)
    // the sentence has the focus; the next Tab is the button
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('deletion-pending')
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'login-deletion-pending-390')

    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Send the restore link')
    await page.keyboard.press('Enter')
    const sent = page.getByTestId('restore-sent')
    await expect.poll(() => sent.isVisible(), WAIT).toBe(true)
    expect(await sent.textContent()).toBe('We sent the restore link to r***@example.com. Open it to keep your account, then sign in.')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('restore-sent')
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'login-restore-link-sent-390')

    const mail = await e2e.stack.smtp.waitForMail((m) => recipients(m).includes(email) && /restore your account before it is erased/.test(m.subject ?? ''), 15_000)
    await page.goto(magicLinkOf(mail).toString())
    const restore = page.getByRole('button', { name: 'Restore my account' })
    await expect.poll(() => restore.isEnabled(), WAIT).toBe(true)
    await restore.click()
    await expect.poll(() => page.getByRole('heading', { name: 'Your account is restored' }).isVisible(), WAIT).toBe(true)

    await signInInBrowser(page, e2e.stack.url, email)
    expect(csp).toEqual([])
    await page.close()
  })

  it('says in words when a link is broken, on both link pages, with no axe violation', async () => {
    const page = await e2e.browser.newPage()
    await page.goto(`${e2e.stack.url}/auth/delete-account?token=x&random=y&reason=DELETE_ACCOUNT&visitor=z`)
    await expect.poll(() => page.getByText(/ask again from your account page/).first().isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.goto(`${e2e.stack.url}/auth/undo-delete-account?token=x&random=y&reason=UNDO_DELETE_ACCOUNT&visitor=z`)
    await expect.poll(() => page.getByText(/This link is invalid or was already used/).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.close()
  })
})
