/**
 * axe-core on every page of the gateway: no serious or critical violation, and no CSP violation.
 * The gateway runs with a brand (its colours and footer links, docs/gateway.md "Brand"), so the
 * checks cover them too, and the key pages are checked again in the dark palette.
 */
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { freshEmail, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack({
  gatewayConfig: {
    brand: {
      name: 'Acme Cloud',
      colors: { primary: '#7a1fa2', primaryText: '#ffffff' },
      supportEmail: 'help@acme.example',
      legal: { termsUrl: 'https://acme.example/terms', privacyUrl: 'https://acme.example/privacy' },
    },
  },
})

const PUBLIC_PAGES = [
  '/',
  '/login',
  // the sign-in page of an account scheduled for deletion, as a no-JS post lands on it, and after the restore link was sent
  '/login?error=deletion_pending&due=2026-12-05T12:00:00.000Z',
  '/login?restore=sent',
  '/signup',
  '/forgot-password',
  '/reset-password',
  '/reset-password?token=x&random=y&reason=PASSWORD_RESET&visitor=z',
  '/auth/mfa?token=x&random=y&reason=MAGIC_LINK_MFA_CHECKS&visitor=z',
  '/auth/confirm',
  '/auth/verify-email?token=x&random=y&reason=EMAIL_VERIFICATION&visitor=z',
  '/auth/undo-email-change?token=x&random=y&reason=UNDO_EMAIL_CHANGE&visitor=z',
  '/auth/error?error=invalid_state',
  '/auth/error?error=email_missing',
  // the invitation landing page, signed out: a malformed link, and a well-formed one
  '/orgs/invitations/accept?token=x',
  `/orgs/invitations/accept?token=${'A'.repeat(43)}`,
  '/no-such-page',
]

describe('accessibility', () => {
  it.each(PUBLIC_PAGES)('%s has no serious or critical axe violations', async (path) => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    await page.goto(e2e.stack.url + path)
    await page.waitForLoadState('networkidle')
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(csp).toEqual([])
    await page.close()
  })

  it('form errors are announced and tied to their fields', async () => {
    const page = await e2e.browser.newPage()
    await page.goto(`${e2e.stack.url}/signup`)
    await page.getByRole('button', { name: 'Create account' }).click()
    const email = page.getByLabel('Email', { exact: true })
    await expect.poll(() => email.getAttribute('aria-invalid'), WAIT).toBe('true')
    const describedBy = (await email.getAttribute('aria-describedby')) ?? ''
    expect(await page.locator(`#${describedBy}`).textContent()).toContain('Enter an email address')
    // focus moves to the first problem so keyboard and screen-reader users land on it
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name')
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'a11y-signup-errors')
    await page.close()
  })

  it('/signup says the password strength in words as the person types, and Show password works from the keyboard', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    // the estimator and its dictionaries come with the first keystroke, not with the page
    let typed = false
    const dictionaryLoads: string[] = []
    page.on('response', async (res) => {
      if (!res.url().endsWith('.js')) return
      const when = typed ? 'after typing' : 'before typing'
      if ((await res.text().catch(() => '')).includes('diceware-common')) dictionaryLoads.push(when)
    })
    await page.goto(`${e2e.stack.url}/signup`)
    await page.waitForLoadState('networkidle')
    const password = page.getByLabel('Password', { exact: true })
    const meter = page.locator('#password-strength')
    expect(await meter.getAttribute('aria-live')).toBe('polite')
    expect((await password.getAttribute('aria-describedby'))?.split(' ')).toContain('password-strength')
    typed = true
    await password.fill('aaaaaaaaaaaa')
    await expect.poll(() => meter.textContent(), WAIT).toBe('Strength: Very weak. A repeated character like "aaa" is easy to guess. Add more words that are less common.')
    const toggle = page.getByRole('button', { name: 'Show password for Password', exact: true })
    expect(await toggle.getAttribute('aria-pressed')).toBe('false')
    await toggle.focus()
    await page.keyboard.press('Space')
    await expect.poll(() => toggle.getAttribute('aria-pressed'), WAIT).toBe('true')
    expect(await password.getAttribute('type')).toBe('text')
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'a11y-signup-strength')
    await expect.poll(() => dictionaryLoads, WAIT).toEqual(['after typing'])
    await page.keyboard.press('Enter')
    await expect.poll(() => password.getAttribute('type'), WAIT).toBe('password')
    await password.fill('correct horse battery staple 42')
    await expect.poll(() => meter.textContent(), WAIT).toBe('Strength: Very strong.')
    expect(csp).toEqual([])
    await page.close()
  })

  it('signed-in pages (each part of /account, /tokens with a token) have no serious or critical violations', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    await signUpInBrowser(page, e2e.stack.url, freshEmail('a11y'))
    expect(await seriousA11yViolations(page)).toEqual([])
    for (const part of ['security', 'sessions', 'apps', 'data']) {
      await page.goto(`${e2e.stack.url}/account/${part}`)
      await expect.poll(() => page.getByRole('navigation', { name: 'Account sections' }).locator('[aria-current="page"]').getAttribute('href'), WAIT).toBe(`/account/${part}`)
      await expect.poll(() => page.getByRole('status').filter({ hasText: /^Loading/ }).count(), WAIT).toBe(0)
      expect(await seriousA11yViolations(page)).toEqual([])
    }
    await page.goto(`${e2e.stack.url}/tokens`)
    await page.getByLabel('Name', { exact: true }).fill('a11y token')
    await page.getByRole('button', { name: 'Create token' }).click()
    await expect.poll(() => page.getByLabel('Token', { exact: true }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(csp).toEqual([])
    await saveScreenshot(page, 'a11y-tokens')
    await page.close()
  })

  it('organization pages (/orgs, /orgs/:id, the invitation landing page signed in) have no serious or critical violations', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    await signUpInBrowser(page, e2e.stack.url, freshEmail('a11y-orgs'))
    await page.goto(`${e2e.stack.url}/orgs`)
    await page.getByLabel('Name', { exact: true }).fill('Accessible Org')
    await page.getByRole('button', { name: 'Create organization' }).click()
    await page.waitForURL(/\/orgs\/[0-9a-f-]{36}/)
    await expect.poll(() => page.getByTestId('org-members').isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByRole('status').filter({ hasText: /^Loading/ }).count(), WAIT).toBe(0)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.goto(`${e2e.stack.url}/orgs`)
    await expect.poll(() => page.getByTestId('org-list').isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.goto(`${e2e.stack.url}/orgs/invitations/accept?token=${'A'.repeat(43)}`)
    await expect.poll(() => page.getByText('This invitation link is not valid.', { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(csp).toEqual([])
    await page.close()
  })

  it('login, signup and account in dark mode at 390 px have no serious or critical violations', async () => {
    const page = await e2e.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.emulateMedia({ colorScheme: 'dark' })
    const csp = watchCsp(page)
    const check = async (name: string) => {
      await page.waitForLoadState('networkidle')
      // the dark palette is what axe measured (assets/main.css), not the light one
      expect([name, await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)]).toEqual([name, 'rgb(18, 20, 23)'])
      expect([name, await seriousA11yViolations(page)]).toEqual([name, []])
      // the footer wraps instead of widening a phone's page
      expect([name, await page.evaluate(() => document.documentElement.scrollWidth)]).toEqual([name, 390])
      await expect.poll(() => page.getByRole('navigation', { name: 'Legal and support' }).getByRole('link').allTextContents(), WAIT).toEqual(['Terms', 'Privacy', 'Support'])
      await saveScreenshot(page, `a11y-dark-${name}`)
    }
    await page.goto(`${e2e.stack.url}/login`)
    await check('login')
    await page.goto(`${e2e.stack.url}/signup`)
    await check('signup')
    // the brand's primary colour is the buttons' (gateway config brand.colors), in dark mode too
    const submit = page.getByRole('button', { name: 'Create account' })
    expect(await submit.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color])).toEqual(['rgb(122, 31, 162)', 'rgb(255, 255, 255)'])
    await signUpInBrowser(page, e2e.stack.url, freshEmail('a11y-dark'))
    await check('account')
    expect(csp).toEqual([])
    await page.close()
  })
})
