/**
 * "Download your data" on the account page, in Chromium: the button hands over a JSON file named
 * by the date that holds the account's own address; on a sign-in older than the IAM's window the
 * "Confirm it is you" prompt opens beside the button and the download follows the password. axe
 * finds no serious or critical violation on the account page with the section, at 390 px too.
 */
import { readFileSync } from 'node:fs'
import type { Download, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { freshEmail, hmac, PASSWORD, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack(
  {
    iamEnv: CLOCK_ENV,
    iamConfig: () => ({
      // the gateway signs with the real time while the IAM's clock runs ahead
      service: { Hmac: { ...hmac, maxClockSkew: 60 * 60_000 }, proxy: { trust: true, ipToTrust: '127.0.0.1' } },
    }),
  },
)

const FILE_NAME = /^account-export-\d{4}-\d{2}-\d{2}\.json$/

/** The downloaded file's JSON. */
async function documentOf(download: Download): Promise<{ profile: { email: string }; sessions: Array<{ current: boolean }> }> {
  const path = await download.path()
  if (!path) throw new Error(`the download failed: ${await download.failure()}`)
  return JSON.parse(readFileSync(path, 'utf8')) as { profile: { email: string }; sessions: Array<{ current: boolean }> }
}

const section = (page: Page) => page.getByRole('region', { name: 'Your data' })

describe('Download your data', () => {
  it('downloads a JSON file with the account’s address; the page with the section is axe clean and fits 390 px', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const email = freshEmail('export')
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.goto(`${e2e.stack.url}/account/data`)
    const button = section(page).getByRole('button', { name: 'Download your data' })
    await expect.poll(() => button.isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])

    const download = page.waitForEvent('download')
    await button.click()
    const file = await download
    expect(file.suggestedFilename()).toMatch(FILE_NAME)
    const doc = await documentOf(file)
    expect(doc.profile.email).toBe(email)
    expect(doc.sessions.filter((s) => s.current)).toHaveLength(1)
    await expect.poll(() => section(page).getByText(`Your data was downloaded as ${file.suggestedFilename()}.`).isVisible(), WAIT).toBe(true)
    // the gateway hands the file over with the IAM's headers: an attachment no cache keeps
    const headers = await page.evaluate(async () => {
      const res = await fetch('/api/auth/export', { headers: { 'x-csrf': '1' } })
      return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), cache: res.headers.get('cache-control') }
    })
    expect(headers).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/), disposition: `attachment; filename="${file.suggestedFilename()}"`, cache: 'no-store' })

    await page.setViewportSize({ width: 390, height: 844 })
    await section(page).scrollIntoViewIfNeeded()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'data-export-390')
    expect(csp).toEqual([])
    await page.close()
  })

  it('asks to confirm it is you on an old sign-in, then downloads after the password, by keyboard', async () => {
    const page = await e2e.browser.newPage()
    const email = freshEmail('export-reauth')
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.goto(`${e2e.stack.url}/account/data`)
    // past the 10-minute window of the sign-in (the access token, 15 minutes, still holds)
    await advanceClock(e2e.stack.iam, 11 * 60_000, hmac)

    await section(page).getByRole('button', { name: 'Download your data' }).focus()
    await page.keyboard.press('Enter')
    const prompt = section(page).getByRole('group', { name: 'Confirm it is you' })
    await expect.poll(() => prompt.isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe('data-export-reauth-heading')
    expect(await prompt.getByText('The download holds your sessions and security activity').isVisible()).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])

    const download = page.waitForEvent('download')
    await prompt.getByLabel('Your password').fill(PASSWORD)
    await page.keyboard.press('Enter')
    const file = await download
    expect(file.suggestedFilename()).toMatch(FILE_NAME)
    expect((await documentOf(file)).profile.email).toBe(email)
    await expect.poll(() => prompt.isVisible(), WAIT).toBe(false)
    await page.close()
  })
})
