/**
 * The account overview's picture section in Chromium at 390 px: a small PNG chosen in the file
 * input is uploaded, drawn on the page and on the header's account menu button, and removed again;
 * a file the page can tell is wrong (an SVG) is refused before any upload, and one it cannot (an SVG
 * named .png, so the browser calls it image/png) is refused by the server, each with a sentence
 * that says what to do. The section is axe clean, reachable by keyboard, and fits the screen.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { PNG, SVG } from '../helpers/pictures'
import { freshEmail, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack()

const section = (page: Page) => page.getByRole('region', { name: 'Profile picture' })
const fileInput = (page: Page) => page.getByLabel('Upload a picture')
const menuButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: /^Account menu for / })
/** an <img> that loaded: the browser decoded a picture for it */
const drawn = (page: Page, selector: string) => page.locator(selector).evaluate((img) => img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0)
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)

describe('the profile picture on the account overview', () => {
  it('uploads a PNG through the file input, shows it on the page and in the header, and removes it', async () => {
    const page = await e2e.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    await signUpInBrowser(page, e2e.stack.url, freshEmail('picture'))
    await expect.poll(() => section(page).isVisible(), WAIT).toBe(true)
    // no picture yet: the initials, and no picture on the menu button
    expect(await section(page).getByTestId('avatar-initials').textContent()).toBe('AL')
    expect(await section(page).getByTestId('picture-source').textContent()).toBe('No picture: your initials are shown.')
    expect(await menuButton(page).locator('img').count()).toBe(0)
    expect(await seriousA11yViolations(page)).toEqual([])

    // the file input is reached by keyboard like any field
    await fileInput(page).focus()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('picture-file')
    // drawn by its label in the page's words: the browser's own button ("Choose File", in the
    // browser's language) is not what a person sees
    expect(await section(page).locator('label[for="picture-file"]').isVisible()).toBe(true)
    expect(await section(page).locator('label[for="picture-file"]').textContent()).toBe('Upload a picture')
    expect((await fileInput(page).boundingBox())?.width).toBeLessThanOrEqual(1)

    await fileInput(page).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG })
    await expect.poll(() => section(page).getByRole('status').textContent(), WAIT).toBe('Your picture has been saved.')
    await expect.poll(() => drawn(page, '[data-testid="profile-picture"] img'), WAIT).toBe(true)
    expect(await section(page).getByTestId('picture-source').textContent()).toBe('You use a picture you uploaded.')
    await expect.poll(() => drawn(page, 'header [data-testid="menu-avatar"]'), WAIT).toBe(true)
    // the button keeps its name: the picture is decorative beside it
    expect(await menuButton(page).getAttribute('aria-expanded')).toBe('false')
    expect(await page.locator('header [data-testid="menu-avatar"]').getAttribute('alt')).toBe('')
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await scrollsSideways(page)).toBe(false)
    await saveScreenshot(page, 'account-picture-390')

    // after a reload the picture comes from the session state and the gateway again
    await page.reload()
    await expect.poll(() => drawn(page, 'header [data-testid="menu-avatar"]'), WAIT).toBe(true)
    await expect.poll(() => drawn(page, '[data-testid="profile-picture"] img'), WAIT).toBe(true)

    await section(page).getByRole('button', { name: 'Remove picture' }).click()
    await expect.poll(() => section(page).getByRole('status').textContent(), WAIT).toBe('Your picture has been removed.')
    expect(await section(page).getByTestId('avatar-initials').textContent()).toBe('AL')
    await expect.poll(() => menuButton(page).locator('img').count(), WAIT).toBe(0)
    expect(csp).toEqual([])
    await page.close()
  })

  it('refuses an SVG on the page before uploading, and one named .png on the server, saying what to do', async () => {
    const page = await e2e.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const uploads: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'PUT' && request.url().endsWith('/api/auth/picture')) uploads.push(request.url())
    })
    await signUpInBrowser(page, e2e.stack.url, freshEmail('picture-svg'))
    await expect.poll(() => section(page).isVisible(), WAIT).toBe(true)

    await fileInput(page).setInputFiles({ name: 'drawing.svg', mimeType: 'image/svg+xml', buffer: SVG })
    await expect.poll(() => section(page).getByRole('alert').textContent(), WAIT).toBe('This file is not a PNG, JPEG or WebP picture. Choose a picture in one of these formats.')
    expect(uploads).toEqual([])

    // the browser believes the name: the server reads the content
    await fileInput(page).setInputFiles({ name: 'drawing.png', mimeType: 'image/png', buffer: SVG })
    await expect.poll(() => section(page).getByRole('alert').textContent(), WAIT).toBe('Only PNG, JPEG and WebP pictures are accepted. Choose a picture in one of these formats.')
    expect(uploads).toHaveLength(1)
    expect(await section(page).getByTestId('picture-source').textContent()).toBe('No picture: your initials are shown.')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.close()
  })
})
