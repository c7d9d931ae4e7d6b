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
})
