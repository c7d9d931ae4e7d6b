/**
 * Deleting the account in the browser: the account page's danger zone mails a confirmation link,
 * the link's page disables the account and signs the browser out, and the undo link's page
 * restores it so that the password signs in again. axe on each new page.
 */
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { magicLinkOf } from '../helpers/smtp'
import { freshEmail, mailTo, seriousA11yViolations, signInInBrowser, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack()

describe('deleting the account', () => {
  it('account page -> mailed link -> confirm -> signed out and told when; then the undo link -> signs in again', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const email = freshEmail('delete')
    await signUpInBrowser(page, e2e.stack.url, email)

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
