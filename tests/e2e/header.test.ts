/**
 * The header in Chromium at a desktop and a phone width: who is signed in, the account menu by
 * keyboard (open, its links into the console's parts with the current one marked, Escape, sign out), /login sending a signed-in person on, and the account page
 * fitting a 390 px screen without sideways scrolling.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { freshEmail, seriousA11yViolations, signInInBrowser, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack()

const menuButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: /^Account menu for / })
const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? null)

/** What sticks out past the right edge of the viewport (for the failure message: which element to fix). */
const overflowing = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('body *'))
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${Array.from(el.classList).join('.')} ${Math.round(el.getBoundingClientRect().right)}px`),
  )
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)

/** The account console's sessions part once its list has loaded (the list changes the page's width). */
async function accountLoaded(page: Page): Promise<void> {
  await page.goto(`${e2e.stack.url}/account/sessions`)
  await expect.poll(() => page.getByText('Where you are signed in').isVisible(), WAIT).toBe(true)
  await expect.poll(() => page.getByRole('status').filter({ hasText: /^Loading/ }).count(), WAIT).toBe(0)
}

describe.each([
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
])('the header at $width px', ({ width, height }) => {
  it('shows who is signed in, and its menu opens, closes and signs out by keyboard', async () => {
    const page = await e2e.browser.newPage()
    await page.setViewportSize({ width, height })
    const csp = watchCsp(page)
    // a long address with no hyphen to break at: the header and the account page must still fit a phone
    const email = freshEmail(`header${width}witharatherlongmailboxnamethatneverbreaks`)
    await signUpInBrowser(page, e2e.stack.url, email)
    await expect.poll(() => menuButton(page).textContent(), WAIT).toContain('Ada Lovelace')
    expect(await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).count()).toBe(0)

    // open with the keyboard: focus the button, Enter; Tab walks into the menu
    await menuButton(page).focus()
    await page.keyboard.press('Enter')
    expect(await menuButton(page).getAttribute('aria-expanded')).toBe('true')
    const menu = page.locator('#account-menu')
    await expect.poll(() => menu.isVisible(), WAIT).toBe(true)
    const box = await menu.boundingBox()
    expect(box!.x).toBeGreaterThanOrEqual(0)
    expect(box!.x + box!.width).toBeLessThanOrEqual(width)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, `header-signed-in-${width}`, { x: 0, y: 0, width, height: Math.ceil(box!.y + box!.height + 16) })
    // the menu leads into each part of the account console, the open one (the overview) marked as current
    const links = menu.getByRole('link')
    // (then the organization switcher's own links)
    expect(await links.allTextContents()).toEqual(['Overview', 'Security', 'Sessions', 'Apps', 'Your data', 'API tokens', 'Organizations', 'Create organization'])
    expect(await menu.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page')
    expect(await menu.locator('a[aria-current]').count()).toBe(1)
    await page.keyboard.press('Tab')
    expect(await focusedText(page)).toBe('Overview')

    // Escape closes it and gives focus back to the button
    await page.keyboard.press('Escape')
    expect(await menuButton(page).getAttribute('aria-expanded')).toBe('false')
    expect(await menu.isVisible()).toBe(false)
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls'))).toBe('account-menu')

    // sign out from the menu, keyboard only: past the five parts and API tokens
    await page.keyboard.press('Enter')
    for (let i = 0; i < 7; i++) await page.keyboard.press('Tab')
    expect(await focusedText(page)).toBe('Sign out')
    await page.keyboard.press('Enter')
    await page.waitForURL(`${e2e.stack.url}/login?signedOut=1`)
    await expect.poll(() => page.getByText('You have signed out.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByRole('banner').getByRole('link', { name: 'Sign in' }).isVisible(), WAIT).toBe(true)
    expect(await menuButton(page).count()).toBe(0)
    expect((await e2e.browser.context.cookies(e2e.stack.url)).some((c) => c.name === '__Secure-a')).toBe(false)

    // signed in again, /login sends the person on: to a safe returnTo, else to the account
    await signInInBrowser(page, e2e.stack.url, email)
    await page.goto(`${e2e.stack.url}/login?returnTo=/tokens`)
    await page.waitForURL(`${e2e.stack.url}/tokens`)
    await page.goto(`${e2e.stack.url}/login`)
    await page.waitForURL(`${e2e.stack.url}/account`)
    await page.goto(`${e2e.stack.url}/`)
    await page.waitForURL(`${e2e.stack.url}/account`)

    // the account page fits the screen: no sideways scrolling, and axe finds nothing serious
    await accountLoaded(page)
    // on another part, the menu marks that one
    await menuButton(page).click()
    expect(await menu.getByRole('link', { name: 'Sessions' }).getAttribute('aria-current')).toBe('page')
    expect(await menu.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBeNull()
    await page.keyboard.press('Escape')
    expect(await overflowing(page)).toEqual([])
    expect(await scrollsSideways(page)).toBe(false)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, `header-account-${width}`)

    // and so does the tokens page with a token in its list
    await page.goto(`${e2e.stack.url}/tokens`)
    await page.getByLabel('Name', { exact: true }).fill('a token with a name long enough to need a second line on a phone')
    await page.getByRole('button', { name: 'Create token' }).click()
    await expect.poll(() => page.getByLabel('Token', { exact: true }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.locator('.token').count(), WAIT).toBe(1)
    expect(await overflowing(page)).toEqual([])
    expect(await scrollsSideways(page)).toBe(false)
    expect(csp).toEqual([])
    await page.close()
  })
})

describe('pages at 390 px', () => {
  it.each(['/', '/login', '/signup', '/forgot-password', '/auth/error?error=iam_conflict'])('%s does not scroll sideways', async (path) => {
    await e2e.browser.context.clearCookies()
    const page = await e2e.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${e2e.stack.url}${path}`)
    await page.waitForLoadState('networkidle')
    expect(await overflowing(page)).toEqual([])
    expect(await scrollsSideways(page)).toBe(false)
    await page.close()
  })
})
