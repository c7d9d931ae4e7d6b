/**
 * Re-authentication in place, in Chromium: on a session whose sign-in is older than the IAM's
 * window, setting up two-step sign-in (and adding a passkey) asks "Confirm it is you" beside the
 * action; after the password the action carries on by itself, with what was typed kept. axe finds
 * no serious or critical violation on the prompt.
 */
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { addVirtualAuthenticator, confirmEmailInBrowser, freshEmail, hmac, PASSWORD, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

/** passkeys need a host name (their relying party is `localhost`) */
let base: string
const e2e = useE2eStack(
  {
    iamEnv: CLOCK_ENV,
    iamConfig: (port) => ({
      passkeys: { rpID: 'localhost', origins: [`http://localhost:${port}`] },
      // the gateway signs with the real time while the IAM's clock runs ahead
      service: { Hmac: { ...hmac, maxClockSkew: 60 * 60_000 }, proxy: { trust: true, ipToTrust: '127.0.0.1' } },
    }),
  },
)
beforeAll(async () => {
  base = e2e.stack.url.replace('127.0.0.1', 'localhost')
})

/** Past the 10-minute window of the sign-in (the access token, 15 minutes, still holds). */
const pastTheWindow = () => advanceClock(e2e.stack.iam, 11 * 60_000, hmac)

/** A new account on `page` (its address confirmed), past the window; the prompt that "Set up two-step sign-in" then opens. */
async function promptOnTwoStepSetUp(page: Page, tag: string) {
  const email = freshEmail(tag)
  await signUpInBrowser(page, e2e.stack.url, email)
  await confirmEmailInBrowser(page, e2e.stack.smtp, email)
  await pastTheWindow()
  const section = page.getByRole('region', { name: 'Two-step sign-in' })
  await section.getByRole('button', { name: 'Set up two-step sign-in' }).click()
  const prompt = section.getByRole('group', { name: 'Confirm it is you' })
  await expect.poll(() => prompt.isVisible(), WAIT).toBe(true)
  return { section, prompt }
}

describe('re-authentication in place', () => {
  it('asks for the password when two-step sign-in is set up on an old sign-in, then shows the QR code', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    const { section, prompt } = await promptOnTwoStepSetUp(page, 'reauth')
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe('two-step-reauth-heading')
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'reauthenticate-prompt')

    // a wrong password is said at its field, and the prompt stays
    await prompt.getByLabel('Your password').fill('not my password at all')
    await prompt.getByRole('button', { name: 'Confirm and continue' }).click()
    await expect.poll(() => prompt.getByText('That password is not right. Try again.').isVisible(), WAIT).toBe(true)

    await prompt.getByLabel('Your password').fill(PASSWORD)
    await prompt.getByRole('button', { name: 'Confirm and continue' }).click()
    await expect.poll(() => section.getByRole('heading', { name: 'Scan the code with your authenticator app' }).isVisible(), WAIT).toBe(true)
    expect(await prompt.isVisible()).toBe(false)
    expect(csp).toEqual([])
    await page.close()
  })

  it('keeps the passkey name typed before the prompt and adds the passkey after the password', async () => {
    const page = await e2e.browser.newPage()
    await addVirtualAuthenticator(page)
    const email = freshEmail('reauth-passkey')
    await signUpInBrowser(page, base, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)
    await pastTheWindow()

    const section = page.getByRole('region', { name: 'Passkeys' })
    await section.getByLabel('Name for the new passkey (optional)').fill('Work laptop')
    await section.getByRole('button', { name: 'Add a passkey' }).click()
    const prompt = section.getByRole('group', { name: 'Confirm it is you' })
    await expect.poll(() => prompt.isVisible(), WAIT).toBe(true)
    await prompt.getByLabel('Your password').fill(PASSWORD)
    await prompt.getByRole('button', { name: 'Confirm and continue' }).click()
    await expect.poll(() => section.getByTestId('passkey-list').getByText('Work laptop').isVisible(), WAIT).toBe(true)
    await page.close()
  })

  it('lets the person cancel: nothing changes and the action can be started again', async () => {
    const page = await e2e.browser.newPage()
    const { section, prompt } = await promptOnTwoStepSetUp(page, 'reauth-cancel')
    await prompt.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => prompt.isVisible(), WAIT).toBe(false)
    await expect.poll(() => section.getByRole('button', { name: 'Set up two-step sign-in' }).isEnabled(), WAIT).toBe(true)
    await page.close()
  })
})
