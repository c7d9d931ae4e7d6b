/**
 * The screenshots of every page (README.md, docs/gateway.md), taken in Chromium at 1280 px against the real stack. Each
 * lands in test-results/ like every browser test's; only with UPDATE_SCREENSHOTS=1 is it also
 * copied into docs/screenshots/, so an ordinary run never rewrites the committed images.
 */
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/build'
import { saveScreenshot } from '../helpers/browser'
import { freshEmail, mailTo, signUpInBrowser, useE2eStack, WAIT } from './auth-stack'

const UPDATE = process.env.UPDATE_SCREENSHOTS === '1'

const e2e = useE2eStack()

/** The visible part of the page (1280 x 800): small files, and what a person sees first. */
async function shoot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize()!
  const path = await saveScreenshot(page, `page-${name}`, { x: 0, y: 0, width: viewport.width, height: viewport.height })
  if (UPDATE) copyFileSync(path, join(ROOT, 'docs', 'screenshots', `${name}.png`))
}

describe('screenshots of every page at 1280 px', () => {
  it('shows each signed-out page with its form', async () => {
    const page = await e2e.browser.newPage()
    for (const [path, name, heading] of [
      ['/login', 'sign-in', 'Sign in'],
      ['/signup', 'sign-up', 'Create an account'],
      ['/forgot-password', 'forgot-password', 'Reset your password'],
    ] as const) {
      await page.goto(`${e2e.stack.url}${path}`)
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), WAIT).toBe(heading)
      await shoot(page, name)
    }
    await page.close()
  })

  it('lands a new account on its page with "Check your inbox", then shows its tokens and the verification page', async () => {
    const page = await e2e.browser.newPage()
    const email = freshEmail('ada')
    await signUpInBrowser(page, e2e.stack.url, email)
    const notice = page.getByTestId('inbox-notice')
    await expect.poll(() => notice.isVisible(), WAIT).toBe(true)
    expect((await notice.textContent())?.replace(/\s+/g, ' ')).toContain(`we sent a link to ${email[0]}***@example.com to confirm your address`)
    await shoot(page, 'account')

    await page.goto(`${e2e.stack.url}/tokens`)
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), WAIT).toBe('API tokens')
    await shoot(page, 'api-tokens')

    const mail = await mailTo(e2e.stack.smtp, email, '/auth/verify-email?')
    const link = new URL(/(https?:\/\/\S+\/auth\/verify-email\?\S+)/.exec(mail.text ?? '')![1]!)
    await page.goto(`${e2e.stack.url}${link.pathname}${link.search}`)
    await expect.poll(() => page.getByRole('button', { name: 'Confirm my email address' }).isVisible(), WAIT).toBe(true)
    await shoot(page, 'verify-email')
    await page.close()
  })
})
