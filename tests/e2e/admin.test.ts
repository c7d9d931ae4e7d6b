/**
 * The admin console (/admin) in Chromium at a phone's width: an administrator (the role granted by
 * the test build's route that does what `users:grant-admin` does) finds an account, signs it out
 * everywhere, signs in as it (the banner on every page, End brings the administrator back); an
 * account without the role reads that it needs it; a webhook endpoint added, its test event delivered
 * to a receiver of the test's own and listed, then the last hour sent again to it from the console; a mail's German subject overridden, previewed and
 * reset. axe on every admin page.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { signRequestV2 } from '../../iam/client/hmac'
import { saveScreenshot } from '../helpers/browser'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { magicLinkOf } from '../helpers/smtp'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver'
import { freshEmail, hmac, mailTo, PASSWORD, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const RECEIVER_HOST = '127.0.0.2'
let hooks: WebhookReceiver | undefined
afterAll(async () => {
  await hooks?.stop()
})

const e2e = useE2eStack(
  {
    iamEnv: CLOCK_ENV,
    // the gateway signs with the real time while the IAM's clock runs ahead (the last test moves it)
    iamConfig: () => ({
      service: { Hmac: { ...hmac, maxClockSkew: 60 * 60_000 }, proxy: { trust: true, ipToTrust: '127.0.0.1' } },
      // the webhook walk's receiver is this machine's 127.0.0.2 over http (tests/helpers/webhook-receiver.ts)
      webhooks: { enabled: true, pollMs: 100, allowHttp: true, allowAddresses: [`${RECEIVER_HOST}/32`] },
    }),
  },
  { browsers: ['adminBrowser', 'userBrowser'] },
)

/** POST /__test/platform-admin on the IAM (signed: the stack's IAM requires HMAC). */
async function grantAdmin(email: string): Promise<void> {
  const body = JSON.stringify({ email, admin: true })
  const headers = signRequestV2({ ...hmac, method: 'POST', url: '/__test/platform-admin', body })
  const res = await fetch(`${e2e.stack.iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  expect(res.status, await res.text()).toBe(200)
}

/** true when nothing scrolls sideways; else what sticks out, to say which element */
const fitsWidth = (page: Page) =>
  page.evaluate(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth) return true
    const wide = Array.from(document.querySelectorAll('#main *')).filter((el) => el.getBoundingClientRect().right > window.innerWidth)
    return wide.slice(-3).map((el) => `${el.tagName}.${el.className}: ${el.textContent?.slice(0, 60)}`)
  })

describe('the admin console', () => {
  it('tells an account without the role that it needs administrator rights (no raw answer)', async () => {
    const page = await e2e.browsers.userBrowser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await signUpInBrowser(page, e2e.stack.url, freshEmail('notadmin'))
    await page.goto(`${e2e.stack.url}/admin`)
    await expect.poll(() => page.getByRole('heading', { name: 'Administrator rights needed' }).isVisible(), WAIT).toBe(true)
    expect(await page.locator('#main').innerText()).not.toMatch(/Platform administrators only|"ok"/)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.context().clearCookies()
  })

  it('makes the first administrator from the code the running IAM wrote, entered at /admin/bootstrap', async () => {
    const page = await e2e.browsers.adminBrowser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await signUpInBrowser(page, e2e.stack.url, freshEmail('first-admin'))
    const code = readFileSync(join(e2e.stack.iam.dataDir, 'iam', 'admin-bootstrap-code'), 'utf8').trim()
    await page.goto(`${e2e.stack.url}/admin/bootstrap`)
    const field = page.getByLabel('One-time code')
    await expect.poll(() => field.isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await field.fill(`${code}x`)
    await field.press('Enter')
    await expect.poll(() => page.getByText('That is not the code the server wrote').isVisible(), WAIT).toBe(true)
    await field.fill(code)
    await page.getByRole('button', { name: 'Make my account an administrator' }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Accounts', exact: true }).isVisible(), WAIT).toBe(true)
    expect(new URL(page.url()).pathname).toBe('/admin')
    await page.context().clearCookies()
  })

  it('finds an account, signs it out everywhere, signs in as it with a banner on every page, and End brings the administrator back', async () => {
    const adminEmail = freshEmail('admin')
    const userEmail = freshEmail('member')
    const page = await e2e.browsers.adminBrowser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    const member = await e2e.browsers.userBrowser.newPage()
    await signUpInBrowser(member, e2e.stack.url, userEmail)

    // the search, at a phone's width
    await page.goto(`${e2e.stack.url}/admin`)
    await expect.poll(() => page.getByRole('heading', { name: 'Accounts', exact: true }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByLabel('Email or name starts with').fill(userEmail)
    await page.getByRole('button', { name: 'Search' }).click()
    const found = page.getByTestId('admin-users').getByRole('link', { name: userEmail })
    await expect.poll(() => found.isVisible(), WAIT).toBe(true)
    expect(await fitsWidth(page)).toBe(true)
    await saveScreenshot(page, 'admin-accounts-390')
    await found.click()

    // the account's detail, and "Sign out everywhere" confirmed in place
    await expect.poll(() => page.getByTestId('admin-user-email').textContent(), WAIT).toBe(userEmail)
    await expect.poll(() => page.getByTestId('admin-sessions').getByRole('listitem').count(), WAIT).toBe(1)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await page.getByRole('button', { name: 'Sign out everywhere' }).click()
    const confirm = page.getByRole('group', { name: /^Sign .+ out everywhere/ })
    await expect.poll(() => confirm.isVisible(), WAIT).toBe(true)
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Cancel')
    expect(await seriousA11yViolations(page)).toEqual([])
    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByText('Signed out everywhere: 1 session ended.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByText('No live sessions.').isVisible(), WAIT).toBe(true)
    await member.goto(`${e2e.stack.url}/account`)
    await member.waitForURL(/\/login/)

    // signing in as the account: the banner says who, on every page
    await page.getByRole('button', { name: 'Sign in as this person' }).click()
    await page.getByRole('group', { name: /^Sign in as / }).getByRole('button', { name: 'Confirm' }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    const banner = page.getByRole('region', { name: 'Signed in on someone’s behalf' })
    await expect.poll(() => banner.isVisible(), WAIT).toBe(true)
    expect(await banner.innerText()).toMatch(new RegExp(`You are signed in as ${userEmail.replace(/[.+]/g, '\\$&')} on behalf of ${adminEmail.replace(/[.+]/g, '\\$&')}`))
    await expect.poll(() => page.locator('#main').getByText(userEmail).first().isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await saveScreenshot(page, 'admin-impersonation-banner-390')
    // the administrator's own session waits aside where no page script and no other route sees it
    const kept = (await page.context().cookies()).find((c) => c.name === '__Secure-admin-session')
    expect(kept).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/api' })
    await page.goto(`${e2e.stack.url}/tokens`)
    await expect.poll(() => banner.isVisible(), WAIT).toBe(true)
    // the console itself is closed while acting for someone else
    await page.goto(`${e2e.stack.url}/admin`)
    await expect.poll(() => page.getByText(/You are signed in on someone’s behalf/).isVisible(), WAIT).toBe(true)

    await banner.getByRole('button', { name: 'End' }).click()
    await page.waitForURL(`${e2e.stack.url}/admin`)
    await expect.poll(() => page.getByRole('heading', { name: 'Accounts', exact: true }).isVisible(), WAIT).toBe(true)
    expect(await banner.count()).toBe(0)
    await page.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => page.locator('#main').getByText(adminEmail).first().isVisible(), WAIT).toBe(true)
    expect(await banner.count()).toBe(0)
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('__Secure-admin-session')
    expect(csp).toEqual([])
  })

  it('signing out while acting for someone ends the administrator’s own session too', async () => {
    const adminEmail = freshEmail('admin2')
    const userEmail = freshEmail('member2')
    const page = await e2e.browsers.adminBrowser.newPage()
    await page.context().clearCookies()
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    const member = await e2e.browsers.userBrowser.newPage()
    await member.context().clearCookies()
    await signUpInBrowser(member, e2e.stack.url, userEmail)

    await page.goto(`${e2e.stack.url}/admin?q=${encodeURIComponent(userEmail)}`)
    await page.getByTestId('admin-users').getByRole('link', { name: userEmail }).click()
    await expect.poll(() => page.getByTestId('admin-user-email').textContent(), WAIT).toBe(userEmail)
    await page.getByRole('button', { name: 'Sign in as this person' }).click()
    await page.getByRole('group', { name: /^Sign in as / }).getByRole('button', { name: 'Confirm' }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('region', { name: 'Signed in on someone’s behalf' }).isVisible(), WAIT).toBe(true)

    const kept = (await page.context().cookies()).find((c) => c.name === '__Secure-admin-session')
    expect(kept).toBeDefined()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('__Secure-admin-session')
    // the kept session itself ended at the IAM: put back, it no longer brings the administrator back
    await page.context().addCookies([kept!])
    const end = await page.evaluate(async () => {
      const res = await fetch('/api/admin/impersonation/end', { method: 'POST', headers: { 'x-csrf': '1', accept: 'application/json' } })
      return { status: res.status, body: (await res.json()) as { data?: { restored?: boolean } } }
    })
    expect(end).toMatchObject({ status: 200, body: { data: { restored: false } } })
    await page.goto(`${e2e.stack.url}/admin`)
    await page.waitForURL(/\/login/)
    // the account's own session (another device) was never touched
    await member.goto(`${e2e.stack.url}/account`)
    await expect.poll(() => member.locator('#main').getByText(userEmail).first().isVisible(), WAIT).toBe(true)
  })

  it('marks an account whose owner confirmed its deletion in the list, and its detail says when it is erased', async () => {
    const adminEmail = freshEmail('admin5')
    const userEmail = freshEmail('leaving')
    const member = await e2e.browsers.userBrowser.newPage()
    await member.context().clearCookies()
    await signUpInBrowser(member, e2e.stack.url, userEmail)
    await member.goto(`${e2e.stack.url}/account/data`)
    await member.getByRole('button', { name: 'Delete my account' }).click()
    await member.getByRole('group', { name: /Delete your account\?/ }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => member.getByTestId('delete-account-sent').isVisible(), WAIT).toBe(true)
    await member.goto(magicLinkOf(await mailTo(e2e.stack.smtp, userEmail, '/auth/delete-account?')).toString())
    await member.getByRole('button', { name: 'Confirm the deletion' }).click()
    await expect.poll(() => member.getByRole('heading', { name: 'Your account is disabled' }).isVisible(), WAIT).toBe(true)

    const page = await e2e.browsers.adminBrowser.newPage()
    await page.context().clearCookies()
    await page.setViewportSize({ width: 390, height: 844 })
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    await page.goto(`${e2e.stack.url}/admin?q=${encodeURIComponent(userEmail)}`)
    const row = page.getByTestId('admin-users').getByRole('listitem').filter({ hasText: userEmail })
    await expect.poll(() => row.isVisible(), WAIT).toBe(true)
    expect(await row.innerText()).toContain('deletion confirmed')
    expect(await seriousA11yViolations(page)).toEqual([])
    await row.getByRole('link', { name: userEmail }).click()
    await expect.poll(() => page.getByTestId('admin-user-email').textContent(), WAIT).toBe(userEmail)
    expect(await page.getByTestId('admin-user-deletion').innerText()).toMatch(/^Deletion confirmed: erased on \D*\d.* unless the owner undoes it$/)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)

    // an account without a confirmed deletion carries neither
    await page.goto(`${e2e.stack.url}/admin?q=${encodeURIComponent(adminEmail)}`)
    const own = page.getByTestId('admin-users').getByRole('listitem').filter({ hasText: adminEmail })
    await expect.poll(() => own.isVisible(), WAIT).toBe(true)
    expect(await own.innerText()).not.toContain('deletion confirmed')
    await own.getByRole('link', { name: adminEmail }).click()
    await expect.poll(() => page.getByTestId('admin-user-email').textContent(), WAIT).toBe(adminEmail)
    expect(await page.getByTestId('admin-user-deletion').count()).toBe(0)
    await page.close()
    await member.close()
  })

  it('suspends an account with a reason until a date: the console and the person signing in read the day and the reason, never a raw date', async () => {
    const adminEmail = freshEmail('admin6')
    const userEmail = freshEmail('suspended')
    const member = await e2e.browsers.userBrowser.newPage()
    await member.context().clearCookies()
    await signUpInBrowser(member, e2e.stack.url, userEmail)
    await member.context().clearCookies()

    const page = await e2e.browsers.adminBrowser.newPage()
    await page.context().clearCookies()
    await page.setViewportSize({ width: 390, height: 844 })
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    await page.goto(`${e2e.stack.url}/admin?q=${encodeURIComponent(userEmail)}`)
    await page.getByTestId('admin-users').getByRole('link', { name: userEmail }).click()
    await expect.poll(() => page.getByTestId('admin-user-email').textContent(), WAIT).toBe(userEmail)
    await page.getByRole('button', { name: 'Suspend account' }).click()
    // a reason is required: the form says so next to the field
    await page.getByRole('button', { name: 'Suspend', exact: true }).click()
    await expect.poll(() => page.getByText('Give a reason: the person reads it when they try to sign in.').isVisible(), WAIT).toBe(true)
    await page.getByLabel(/^Reason/).fill('Spam in the forum')
    await page.getByLabel('Until a date').check()
    const end = new Date(Date.now() + 20 * 86_400_000)
    const day = end.toISOString().slice(0, 10)
    await page.getByLabel('Ends on').fill(day)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Suspend', exact: true }).click()
    const words = `until ${new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`))}`
    await expect.poll(() => page.getByTestId('admin-user-status').textContent(), WAIT).toBe(`suspended ${words}: Spam in the forum`)
    await saveScreenshot(page, 'admin-user-suspended')

    await member.goto(`${e2e.stack.url}/login`)
    await member.getByLabel('Email', { exact: true }).fill(userEmail)
    await member.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await member.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect.poll(() => member.getByTestId('suspended-notice').textContent(), WAIT).toContain(`Your account is suspended ${words}. Reason: Spam in the forum`)
    expect(await member.getByTestId('suspended-notice').textContent()).not.toMatch(/9999|T00:00/)
    await saveScreenshot(member, 'login-suspended')
    await page.close()
    await member.close()
  })

  it('lists organizations, and webhooks with the form to add one (axe clean at 390 px)', async () => {
    const page = await e2e.browsers.adminBrowser.newPage()
    await page.context().clearCookies()
    await page.setViewportSize({ width: 390, height: 844 })
    const adminEmail = freshEmail('admin3')
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    await page.goto(`${e2e.stack.url}/admin/orgs`)
    await expect.poll(() => page.getByRole('heading', { name: 'Organizations', level: 2 }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Webhooks' }).click()
    await expect.poll(() => page.getByText('No endpoints yet.').isVisible(), WAIT).toBe(true)
    await page.getByRole('button', { name: 'Add an endpoint' }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe('webhook-new-url')
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)

    // an endpoint at a receiver of the test's own: added, its secret shown once, a test event delivered and listed
    hooks = await startWebhookReceiver(RECEIVER_HOST)
    const url = `${hooks.base}/console-hook`
    hooks.scripts.set('/console-hook', [{ status: 204 }])
    await page.getByLabel('Endpoint URL').fill(url)
    await page.getByLabel('All events').check()
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const secret = page.getByRole('textbox', { name: 'Signing secret' })
    await expect.poll(() => secret.isVisible(), WAIT).toBe(true)
    hooks.secrets.set('/console-hook', [await secret.inputValue()])
    await expect.poll(() => page.getByTestId('webhook-endpoints').getByText(url).isVisible(), WAIT).toBe(true)
    await page.getByRole('button', { name: `Send a test event to ${url}` }).click()
    await expect.poll(() => page.getByText('A test event is on its way.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => hooks!.at('/console-hook').filter((r) => r.verified !== null).length, WAIT).toBe(1)
    const recent = page.getByRole('button', { name: `Recent deliveries of ${url}` })
    await recent.click()
    await expect.poll(() => page.getByText('delivered', { exact: false }).first().isVisible(), WAIT).toBe(true)
    expect(await recent.getAttribute('aria-expanded')).toBe('true')
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)

    // the last hour sent again, the delivered test event included: confirmed in place, counted, and at the receiver a second time
    await page.getByRole('button', { name: `Send again a time range of ${url}` }).click()
    const from = page.getByLabel('From', { exact: true })
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe(await from.getAttribute('id'))
    const hourAgo = await page.evaluate(() => {
      const d = new Date(Date.now() - 3_600_000)
      const two = (n: number) => String(n).padStart(2, '0')
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`
    })
    await from.fill(hourAgo)
    await page.getByLabel('Delivered ones too').check()
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await page.getByRole('button', { name: 'Continue' }).click()
    const question = page.getByRole('group', { name: new RegExp(`^Send again to ${url.replace(/[.]/g, '\\.')} every delivery made from .* until now, the delivered ones too`) })
    await expect.poll(() => question.isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await question.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByText('1 delivery queued again.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => hooks!.at('/console-hook').filter((r) => r.verified !== null).length, WAIT).toBe(2)
    const ids = hooks!.at('/console-hook').filter((r) => r.verified !== null).map((r) => r.headers['webhook-id'])
    expect(ids[1]).toBe(ids[0])
  })

  it('lists the OpenID clients from the console navigation, by keyboard, axe clean at 390 px', async () => {
    const body = JSON.stringify({ name: 'Orders console app', redirectUris: ['https://orders.example.com/cb'] })
    const made = await fetch(`${e2e.stack.iam.url}/__test/oidc-clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signRequestV2({ ...hmac, method: 'POST', url: '/__test/oidc-clients', body }) },
      body,
    })
    expect(made.status, await made.text()).toBe(200)
    const page = await e2e.browsers.adminBrowser.newPage()
    await page.context().clearCookies()
    await page.setViewportSize({ width: 390, height: 844 })
    const adminEmail = freshEmail('admin-clients')
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    await page.goto(`${e2e.stack.url}/admin`)
    const link = page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'OpenID clients' })
    await link.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByRole('heading', { name: 'OpenID clients', level: 2 }).isVisible(), WAIT).toBe(true)
    expect(await link.getAttribute('aria-current')).toBe('page')
    await expect.poll(() => page.getByTestId('admin-clients').textContent(), WAIT).toContain('Orders console app')
    expect(await page.getByTestId('admin-clients').textContent()).toContain('Configured')
    expect(await page.getByText('No host is blocked.').isVisible()).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await saveScreenshot(page, 'admin-clients-390')
  })

  it('overrides the German subject of a mail, previews it in a sandbox, saves it and resets it (axe clean at 390 px)', async () => {
    const page = await e2e.browsers.adminBrowser.newPage()
    await page.context().clearCookies()
    await page.setViewportSize({ width: 390, height: 844 })
    const adminEmail = freshEmail('admin-mails')
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    await page.goto(`${e2e.stack.url}/admin/mails`)
    await page.getByLabel('Mail', { exact: true }).selectOption('emailChanged')
    await page.getByLabel('Language of the mail').selectOption('de')
    await expect.poll(() => page.locator('#admin-mail-default-subject').textContent(), WAIT).toContain('Ihre E-Mail-Adresse wurde geändert')
    await page.locator('#admin-mail-text-subject').fill('{siteName}: Ihre Adresse ist neu')
    await page.getByRole('button', { name: 'Preview' }).click()
    await expect.poll(() => page.getByTestId('admin-mail-subject').textContent(), WAIT).toMatch(/: Ihre Adresse ist neu$/)
    expect(await page.locator('iframe[sandbox=""]').count()).toBe(1)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'now uses your words' }).isVisible(), WAIT).toBe(true)
    await page.getByRole('button', { name: 'Reset to the built-in words' }).click()
    await page.getByRole('group', { name: /^Go back to the built-in words/ }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByText('The built-in words apply again.').isVisible(), WAIT).toBe(true)
    expect(await page.locator('#admin-mail-text-subject').inputValue()).toBe('')
    await page.close()
  })

  it('asks for a fresh sign-in in place when the administrator’s proof is too old, then runs the action (the clock moves: last)', async () => {
    const adminEmail = freshEmail('admin4')
    const userEmail = freshEmail('member4')
    const page = await e2e.browsers.adminBrowser.newPage()
    await page.context().clearCookies()
    await page.setViewportSize({ width: 390, height: 844 })
    await signUpInBrowser(page, e2e.stack.url, adminEmail)
    await grantAdmin(adminEmail)
    const member = await e2e.browsers.userBrowser.newPage()
    await member.context().clearCookies()
    await signUpInBrowser(member, e2e.stack.url, userEmail)
    await page.goto(`${e2e.stack.url}/admin?q=${encodeURIComponent(userEmail)}`)
    await page.getByTestId('admin-users').getByRole('link', { name: userEmail }).click()
    await expect.poll(() => page.getByTestId('admin-user-email').textContent(), WAIT).toBe(userEmail)

    // past the administrators' 10 minutes, within the access token's life
    await advanceClock(e2e.stack.iam, 11 * 60_000, hmac)
    await page.getByRole('button', { name: 'Send password reset link' }).click()
    await page.getByRole('group', { name: /^Email .+ a link to reset their password\?$/ }).getByRole('button', { name: 'Confirm' }).click()
    const prompt = page.getByRole('group', { name: 'Confirm it is you' })
    await expect.poll(() => prompt.isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await fitsWidth(page)).toBe(true)
    await prompt.getByLabel('Your password').fill(PASSWORD)
    await prompt.getByRole('button', { name: 'Confirm and continue' }).click()
    await expect.poll(() => page.getByText('A password reset link is on its way to them.').isVisible(), WAIT).toBe(true)
    expect(await prompt.count()).toBe(0)
  })
})
