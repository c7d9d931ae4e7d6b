/**
 * Passkeys in Chromium with a CDP virtual authenticator (internal, resident keys, user verified):
 * add a passkey from the account page, sign out, sign in with the login page's passkey button,
 * remove it; axe finds no serious or critical violation on the new screens, and the page CSP holds.
 *
 * WebAuthn refuses IP addresses as relying party ids, so the browser opens the gateway as
 * `localhost` (the IAM's passkeys.rpID) rather than 127.0.0.1.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { codeOf, recipients } from '../helpers/smtp'
import { addVirtualAuthenticator, confirmEmailInBrowser, freshEmail, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

let base: string
const e2e = useE2eStack({ iamConfig: (port) => ({ passkeys: { rpID: 'localhost', origins: [`http://localhost:${port}`] } }) })
beforeAll(async () => {
  base = e2e.stack.url.replace('127.0.0.1', 'localhost')
})

describe('passkeys in the browser', () => {
  it('adds a passkey on the account page, signs in with it after signing out, and removes it', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page)
    const email = freshEmail('passkey')
    await signUpInBrowser(page, base, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)

    const section = page.getByRole('region', { name: 'Passkeys' })
    await expect.poll(() => section.getByText('You have no passkeys yet.').isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    await section.getByLabel('Name for the new passkey (optional)').fill('Test laptop')
    await section.getByRole('button', { name: 'Add a passkey' }).click()
    await expect.poll(() => section.getByTestId('passkey-list').getByText('Test laptop').isVisible(), WAIT).toBe(true)
    await expect.poll(() => section.getByText('Passkey added.', { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    expect(credentials).toHaveLength(1)
    expect(credentials[0]!.isResidentCredential).toBe(true)
    await saveScreenshot(page, 'passkey-added')

    // the button, as in a browser without passkey autofill: Chromium's virtual authenticator answers
    // the login page's background (conditional) request at once, which would sign in before the
    // click (tests/e2e/passkey-autofill.test.ts covers that way in)
    // (in this document, as signing out moves to the login page without loading a new one)
    await page.evaluate(() => Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', { value: () => Promise.resolve(false) }))
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${base}/account`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
    await page.goto(`${base}/account/security`)
    // the sign-in used the passkey: its counter moved and the list says when
    await expect.poll(() => section.getByText('last used', { exact: false }).isVisible(), WAIT).toBe(true)

    await section.getByRole('button', { name: 'Remove passkey Test laptop' }).click()
    await section.getByRole('group', { name: 'Remove passkey Test laptop?' }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => section.getByText('You have no passkeys yet.').isVisible(), WAIT).toBe(true)
    expect(csp).toEqual([])
    await page.close()
  })

  it('tells the user when the passkey is not known any more', async () => {
    const page = await e2e.browser.newPage()
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page)
    const email = freshEmail('passkey-gone')
    await signUpInBrowser(page, base, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)
    const section = page.getByRole('region', { name: 'Passkeys' })
    await section.getByRole('button', { name: 'Add a passkey' }).click()
    await expect.poll(() => section.getByTestId('passkey-list').locator('li').count(), WAIT).toBe(1)
    await section.getByRole('button', { name: /^Remove passkey/ }).click()
    await section.getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => section.getByText('You have no passkeys yet.').isVisible(), WAIT).toBe(true)
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    const alert = page.getByText('That passkey could not be verified', { exact: false })
    await expect.poll(() => alert.isVisible(), WAIT).toBe(true)
    expect(page.url()).toContain('/login')
    await page.close()
  })

  it('signs up with a passkey and no password at 390 px, lands on the account page, and signs in with the passkey after signing out', async () => {
    const page = await e2e.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page)
    const email = freshEmail('passkey-signup')
    await page.goto(`${base}/signup`)
    await page.getByRole('button', { name: 'Sign up with a passkey instead' }).click()
    const flow = page.getByTestId('passkey-signup')
    await flow.getByLabel('Name', { exact: true }).fill('Grace Hopper')
    await flow.getByLabel('Email', { exact: true }).fill(email)
    await flow.getByLabel('I accept the terms of service').check()
    expect(await seriousA11yViolations(page)).toEqual([])
    // by keyboard: the focused button is the one that sends the code
    await flow.getByRole('button', { name: 'Email me a code' }).focus()
    await page.keyboard.press('Enter')
    const codeField = flow.getByLabel('Code from the mail (7 digits)')
    await expect.poll(() => codeField.isVisible(), WAIT).toBe(true)
    await expect.poll(() => flow.getByText(`A mail is on its way to ${email}`, { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('pk-code')
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390)
    const mail = await e2e.stack.smtp.waitForMail((m) => recipients(m).includes(email) && (m.subject ?? '').includes('sign-up code'), 15_000)

    // a wrong code first: said at the field, from its code
    await codeField.fill(codeOf(mail) === '0000000' ? '1111111' : '0000000')
    await flow.getByRole('button', { name: 'Create my passkey' }).click()
    await expect.poll(() => flow.getByText('That code is not valid or has expired.').isVisible(), WAIT).toBe(true)
    await codeField.fill(codeOf(mail))
    await flow.getByRole('button', { name: 'Create my passkey' }).click()
    await page.waitForURL(`${base}/account`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    expect(credentials).toHaveLength(1)
    expect(credentials[0]!.isResidentCredential).toBe(true)
    await page.goto(`${base}/account/security`)
    const section = page.getByRole('region', { name: 'Passkeys' })
    await expect.poll(() => section.getByTestId('passkey-list').locator('li').count(), WAIT).toBe(1)
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'passkey-signup-account-390')

    await page.evaluate(() => Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', { value: () => Promise.resolve(false) }))
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${base}/account`)
    await expect.poll(() => page.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
    expect(csp).toEqual([])
    await page.close()
  })
})
