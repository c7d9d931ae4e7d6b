/** The account console's sessions and security parts in Chromium: sessions, password change, recent activity. */
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { freshEmail, PASSWORD, passwordMeterSettled, seriousA11yViolations, signInInBrowser, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

// two browsers with their own cookies: two devices of one user
const e2e = useE2eStack({}, { browsers: ['laptop', 'phone'] })

describe('account page: sessions and security', () => {
  it('ends the other device’s session after an in-place "Sign out <device>?", and that device is signed out', async () => {
    const email = freshEmail('sessions')
    const mine = await e2e.browsers.laptop.newPage()
    // a phone's width: the sections, their navigation and the confirmation must fit without sideways scrolling
    await mine.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(mine)
    await signUpInBrowser(mine, e2e.stack.url, email)
    const other = await e2e.browsers.phone.newPage()
    await signInInBrowser(other, e2e.stack.url, email)

    // the overview first, then the console's own navigation to the sessions part
    await mine.goto(`${e2e.stack.url}/account`)
    const nav = mine.getByRole('navigation', { name: 'Account sections' })
    await nav.getByRole('link', { name: 'Sessions' }).click()
    await expect.poll(() => new URL(mine.url()).pathname, WAIT).toBe('/account/sessions')
    expect(await nav.getByRole('link', { name: 'Sessions' }).getAttribute('aria-current')).toBe('page')
    const sessions = mine.getByRole('region', { name: 'Where you are signed in' })
    await expect.poll(() => sessions.getByRole('listitem').count(), WAIT).toBe(2)
    await expect.poll(() => sessions.getByText('This device').isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(mine)).toEqual([])
    await saveScreenshot(mine, 'account-sessions')

    await sessions.getByRole('button', { name: /^End session:/ }).click()
    const confirm = sessions.getByRole('group', { name: /^Sign out .+\?$/ })
    await expect.poll(() => confirm.isVisible(), WAIT).toBe(true)
    // focus on Cancel: pressing Enter again does not end the session
    expect(await mine.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Cancel')
    expect(await sessions.getByRole('listitem').count()).toBe(2)
    expect(await seriousA11yViolations(mine)).toEqual([])
    expect(await mine.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await saveScreenshot(mine, 'account-sessions-confirm-390')

    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => sessions.getByText(/was ended/).isVisible(), WAIT).toBe(true)
    await expect.poll(() => sessions.getByRole('listitem').count(), WAIT).toBe(1)

    await other.goto(`${e2e.stack.url}/account`)
    await other.waitForURL(/\/login/)
    expect(csp).toEqual([])
  })

  it('"End all other sessions" asks first: Cancel keeps the other device signed in, Confirm ends its session', async () => {
    const email = freshEmail('others')
    const mine = await e2e.browsers.laptop.newPage()
    await mine.context().clearCookies()
    await mine.setViewportSize({ width: 390, height: 844 })
    await signUpInBrowser(mine, e2e.stack.url, email)
    const other = await e2e.browsers.phone.newPage()
    await other.context().clearCookies()
    await signInInBrowser(other, e2e.stack.url, email)

    // an old link to the section of the one-page account lands on the sessions part
    await mine.goto(`${e2e.stack.url}/account#devices`)
    await expect.poll(() => new URL(mine.url()).pathname, WAIT).toBe('/account/sessions')
    const sessions = mine.getByRole('region', { name: 'Where you are signed in' })
    await expect.poll(() => sessions.getByRole('listitem').count(), WAIT).toBe(2)
    const endOthers = sessions.getByRole('button', { name: 'End all other sessions' })
    await endOthers.click()
    const confirm = sessions.getByRole('group', { name: 'Sign out of the 1 other session?' })
    await expect.poll(() => confirm.isVisible(), WAIT).toBe(true)
    expect(await mine.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Cancel')
    expect(await seriousA11yViolations(mine)).toEqual([])
    expect(await mine.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)

    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => endOthers.isVisible(), WAIT).toBe(true)
    // keyboard users keep their place: focus is back on the button that asked
    expect(await mine.evaluate(() => document.activeElement?.id)).toBe('sessions-end-others')
    await mine.reload()
    await expect.poll(() => sessions.getByRole('listitem').count(), WAIT).toBe(2)
    await other.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => other.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
    expect(new URL(other.url()).pathname).toBe('/account')

    await endOthers.click()
    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => sessions.getByText('1 other session was ended.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => sessions.getByRole('listitem').count(), WAIT).toBe(1)
    // the other device lands on the sign-in page, told why
    await other.goto(`${e2e.stack.url}/account`)
    await other.waitForURL(/\/login/)
    await expect.poll(() => other.getByText('This session was signed out from another device.').isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(other)).toEqual([])
  })

  it('changes the password on the security part and shows it in the recent activity there', async () => {
    const email = freshEmail('pwchange')
    const page = await e2e.browsers.laptop.newPage()
    await page.context().clearCookies()
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.goto(`${e2e.stack.url}/account/security`)
    await page.getByLabel('Current password', { exact: true }).fill('not the password at all')
    await page.getByLabel('New password', { exact: true }).fill('a new account passphrase')
    await page.getByLabel('Repeat the new password').fill('a new account passphrase')
    await passwordMeterSettled(page)
    await page.getByRole('button', { name: 'Change password' }).click()
    const current = page.getByLabel('Current password', { exact: true })
    await expect.poll(() => current.getAttribute('aria-invalid'), WAIT).toBe('true')
    expect(await seriousA11yViolations(page)).toEqual([])

    await current.fill(PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => page.getByText('Your password was changed.').isVisible(), WAIT).toBe(true)
    const activity = page.getByRole('region', { name: 'Recent security activity' })
    await expect.poll(() => activity.getByText('Password changed').isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'account-password-changed')
  })
})
