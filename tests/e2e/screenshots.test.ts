/**
 * The screenshots of every page a person meets and of every mail (README.md, docs/gateway.md,
 * docs/development.md), taken in Chromium against the real stack: pages at 1280 px (the visible
 * 1280 x 800, what a person sees first), mails as a desktop client's 600 px reading pane shows them
 * (the whole mail). Each lands in test-results/ like every browser test's; only with
 * UPDATE_SCREENSHOTS=1 (`npm run screenshots`) is it also copied into docs/screenshots/ (mails into
 * docs/screenshots/mails/<kind>.png), so an ordinary run never rewrites the committed images and
 * still checks each page's heading.
 *
 * Bounded: one stack, one browser and one tab for all the pages, walked as one account's first
 * week (signed out, signed up, its organization, made an administrator, signed out again); one
 * more tab for the mails, which are the English snapshots of docs/mails (tests/unit/mail-snapshots.test.ts).
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { MAIL_KINDS } from '../../iam/contract/mail-templates'
import { signRequestV2 } from '../../iam/client/hmac'
import { ROOT } from '../helpers/build'
import { saveScreenshot } from '../helpers/browser'
import { CLOCK_ENV } from '../helpers/clock'
import { magicLinkOf } from '../helpers/smtp'
import { freshEmail, hmac, mailTo, signUpInBrowser, useE2eStack, WAIT } from './auth-stack'

const UPDATE = process.env.UPDATE_SCREENSHOTS === '1'
const DOCS = join(ROOT, 'docs', 'screenshots')

// email sign-in on: its "we sent a link" page is one a person meets; the test build's routes on
// (CLOCK_ENV) for POST /__test/platform-admin, which makes the administrator (the clock is never moved)
const e2e = useE2eStack({ iamEnv: CLOCK_ENV, iamConfig: () => ({ signIn: { emailLink: true, emailCode: true } }) })

/** The one tab every page is shown in, opened by the first test. */
let tab: Page | undefined
const page = async (): Promise<Page> => (tab ??= await e2e.browser.newPage())
afterAll(async () => {
  await tab?.close()
})

/** The visible part of the page (1280 x 800): small files, and what a person sees first. */
async function shoot(p: Page, name: string): Promise<void> {
  const viewport = p.viewportSize()!
  const path = await saveScreenshot(p, `page-${name}`, { x: 0, y: 0, width: viewport.width, height: viewport.height })
  if (UPDATE) copyFileSync(path, join(DOCS, `${name}.png`))
}

const h1 = (p: Page) => p.getByRole('heading', { level: 1 }).first().textContent()

/** Opens `path`, waits for its h1 (and `h2`, the part's own heading, when given), then shoots it as `name`. */
async function visit(p: Page, path: string, name: string, heading: string, h2?: string): Promise<void> {
  await p.goto(`${e2e.stack.url}${path}`)
  await expect.poll(() => h1(p), WAIT).toBe(heading)
  if (h2) await expect.poll(() => p.getByRole('heading', { level: 2, name: h2, exact: true }).isVisible(), WAIT).toBe(true)
  // nothing still loading in the picture
  await expect.poll(() => p.getByRole('status').filter({ hasText: /^Loading/ }).count(), WAIT).toBe(0)
  await shoot(p, name)
}

/** POST /__test/platform-admin on the IAM (the test build's `users:grant-admin`; signed, as the stack's IAM requires HMAC). */
async function grantAdmin(email: string): Promise<void> {
  const body = JSON.stringify({ email, admin: true })
  const headers = signRequestV2({ ...hmac, method: 'POST', url: '/__test/platform-admin', body })
  const res = await fetch(`${e2e.stack.iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  expect(res.status, await res.text()).toBe(200)
}

const email = freshEmail('ada')
const ORG = 'Analytical Engines'

describe('screenshots of every page at 1280 px', () => {
  it('shows each signed-out page with its form', async () => {
    const p = await page()
    await visit(p, '/login', 'sign-in', 'Sign in')
    await visit(p, '/signup', 'sign-up', 'Create an account')
    await visit(p, '/forgot-password', 'forgot-password', 'Reset your password')
  })

  it('lands a new account on its page with "Check your inbox", then shows each part of the account console, its tokens and the verification page', async () => {
    const p = await page()
    await signUpInBrowser(p, e2e.stack.url, email)
    const notice = p.getByTestId('inbox-notice')
    await expect.poll(() => notice.isVisible(), WAIT).toBe(true)
    expect((await notice.textContent())?.replace(/\s+/g, ' ')).toContain(`we sent a link to ${email[0]}***@example.com to confirm your address`)
    await expect.poll(() => p.locator('#time-zone').isVisible(), WAIT).toBe(true)
    await shoot(p, 'account')

    for (const [part, h2] of [
      ['security', 'Signing in'],
      ['sessions', 'Devices and sessions'],
      ['apps', 'Connected apps'],
      ['data', 'Your data'],
    ] as const) {
      await visit(p, `/account/${part}`, `account-${part}`, 'Your account', h2)
    }
    await visit(p, '/tokens', 'api-tokens', 'API tokens')

    const mail = await mailTo(e2e.stack.smtp, email, '/auth/verify-email?')
    const link = new URL(/(https?:\/\/\S+\/auth\/verify-email\?\S+)/.exec(mail.text ?? '')![1]!)
    await p.goto(`${e2e.stack.url}${link.pathname}${link.search}`)
    await expect.poll(() => p.getByRole('button', { name: 'Confirm my email address' }).isVisible(), WAIT).toBe(true)
    expect(await h1(p)).toBe('Confirm your email address')
    await shoot(p, 'verify-email')
  }, 120_000)

  it('shows the organizations list and one organization', async () => {
    const p = await page()
    await p.goto(`${e2e.stack.url}/orgs`)
    await p.getByLabel('Name', { exact: true }).fill(ORG)
    await p.getByRole('button', { name: 'Create organization' }).click()
    await p.waitForURL(/\/orgs\/[0-9a-f-]{36}\?created=1$/)
    const orgPath = new URL(p.url()).pathname
    await visit(p, orgPath, 'organization', ORG)
    await visit(p, '/orgs', 'organizations', 'Organizations')
    await expect.poll(() => p.getByRole('link', { name: ORG }).first().isVisible(), WAIT).toBe(true)
  }, 90_000)

  it('shows the admin console main pages to an administrator', async () => {
    const p = await page()
    await grantAdmin(email)
    await visit(p, '/admin', 'admin-accounts', 'Administration', 'Accounts')
    await p.getByLabel('Email or name starts with').fill(email)
    await p.getByRole('button', { name: 'Search' }).click()
    const found = p.getByTestId('admin-users').getByRole('link', { name: email })
    await expect.poll(() => found.isVisible(), WAIT).toBe(true)
    await visit(p, new URL((await found.getAttribute('href'))!, e2e.stack.url).pathname, 'admin-account', 'Administration', email)

    await visit(p, '/admin/orgs', 'admin-organizations', 'Administration', 'Organizations')
    const org = p.getByRole('link', { name: ORG }).first()
    await expect.poll(() => org.isVisible(), WAIT).toBe(true)
    await visit(p, new URL((await org.getAttribute('href'))!, e2e.stack.url).pathname, 'admin-organization', 'Administration', ORG)

    for (const [path, name, h2] of [
      ['/admin/mails', 'admin-mails', 'Mail texts'],
      ['/admin/webhooks', 'admin-webhooks', 'Webhooks'],
      ['/admin/clients', 'admin-clients', 'OpenID clients'],
      ['/admin/signups', 'admin-signups', 'Sign-ups and browser checks'],
    ] as const) {
      await visit(p, path, name, 'Administration', h2)
    }
  }, 120_000)

  it('shows, signed out again, the email sign-in sent page and the reset password page of a real link', async () => {
    const p = await page()
    await p.goto(`${e2e.stack.url}/account`)
    await p.getByRole('button', { name: 'Sign out' }).click()
    await p.waitForURL(/\/login/)
    await p.getByLabel('Email', { exact: true }).fill(email)
    await p.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await expect.poll(() => p.getByText(`If an account exists for ${email}, we sent it a sign-in link.`).isVisible(), WAIT).toBe(true)
    await shoot(p, 'email-sign-in-sent')

    await p.goto(`${e2e.stack.url}/forgot-password`)
    await p.getByLabel('Email', { exact: true }).fill(email)
    await p.getByRole('button', { name: 'Send reset link' }).click()
    await expect.poll(() => p.getByText('If an account exists for that address').isVisible(), WAIT).toBe(true)
    const link = magicLinkOf(await mailTo(e2e.stack.smtp, email, '/reset-password'))
    await p.goto(link.toString())
    await expect.poll(() => h1(p), WAIT).toBe('Choose a new password')
    await expect.poll(() => p.getByLabel('New password', { exact: true }).isVisible(), WAIT).toBe(true)
    await shoot(p, 'reset-password')
  }, 90_000)
})

describe('screenshots of every mail at 600 px', () => {
  it('shows each mail kind whole, as a desktop mail client reading pane does', async () => {
    const mails = await e2e.browser.newPage()
    // a short viewport: the full-page shot is then as tall as the mail, without empty space below it
    await mails.setViewportSize({ width: 600, height: 200 })
    if (UPDATE) mkdirSync(join(DOCS, 'mails'), { recursive: true })
    for (const kind of MAIL_KINDS) {
      await mails.setContent(readFileSync(join(ROOT, 'docs', 'mails', `${kind}.html`), 'utf8'))
      // the mail's title is its subject, and its card is there to see
      expect(await mails.title(), kind).toMatch(/^Acme: ./)
      expect(await mails.locator('.mail-card').isVisible(), kind).toBe(true)
      const path = await saveScreenshot(mails, `mail-shot-${kind}`)
      if (UPDATE) copyFileSync(path, join(DOCS, 'mails', `${kind}.png`))
    }
    await mails.close()
  }, 120_000)
})
