/**
 * Passkey autofill on the login page (WebAuthn conditional mediation) in Chromium: the email field
 * carries the `webauthn` autocomplete token, each load asks for sign-in options in the background,
 * and those requests spend none of the per-IP sign-in budget, so loading the page many times locks
 * nobody out. The button and the password form still sign in while the background request waits
 * (they end it first).
 *
 * The IAM's sign-in budget is made small here (rate_limiters.login points 2: 10 failures per IP)
 * so that the page loads of one test outnumber it.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { addVirtualAuthenticator, confirmEmailInBrowser, freshEmail, PASSWORD, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT } from './auth-stack'

let base: string
const LOADS = 15

const e2e = useE2eStack(
  {
    iamConfig: (port) => ({
      passkeys: { rpID: 'localhost', origins: [`http://localhost:${port}`] },
      rate_limiters: { signup: { points: 100, duration: 60, blockDuration: 1 }, login: { points: 2, duration: 600, blockDuration: 600 } },
    }),
  },
)
beforeAll(async () => {
  base = e2e.stack.url.replace('127.0.0.1', 'localhost')
})

const OPTIONS_PATH = '/api/auth/passkeys/login/options'

describe('passkey autofill on the login page', () => {
  it('marks the email field for passkey autofill and asks for options in the background where the browser offers conditional mediation', async () => {
    const page = await e2e.browser.newPage()
    await addVirtualAuthenticator(page)
    const asked: string[] = []
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === OPTIONS_PATH) asked.push(request.method())
    })
    await page.goto(`${base}/login`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible(), WAIT).toBe(true)
    expect(await page.locator('input#email').getAttribute('autocomplete')).toBe('username webauthn')
    const conditional = await page.evaluate(() => PublicKeyCredential.isConditionalMediationAvailable?.() ?? false)
    expect(conditional).toBe(true)
    await expect.poll(() => asked, WAIT).toEqual(['POST'])
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.close()
  })

  it(`spends no sign-in attempt on the background options: ${LOADS} loads of the login page (more than the budget of failures) still let the person sign in`, async () => {
    const page = await e2e.browser.newPage()
    await addVirtualAuthenticator(page)
    const email = freshEmail('autofill-budget')
    await signUpInBrowser(page, base, email)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    let answered = 0
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === OPTIONS_PATH && response.status() === 200) answered++
    })
    for (let i = 0; i < LOADS; i++) {
      await page.goto(`${base}/login`)
      // (the sign-out's own landing on the login page may answer after the listener is on: at least one per load)
      await expect.poll(() => answered, WAIT).toBeGreaterThanOrEqual(i + 1)
    }
    // the password form ends the waiting background request and signs in
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${base}/account`)
    await expect.poll(() => page.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.close()
  })

  it('lets the passkey button take over from the waiting background request, and waits in the background again after it failed', async () => {
    const page = await e2e.browser.newPage()
    const console: string[] = []
    page.on('console', (msg) => {
      if (msg.type() === 'error') console.push(msg.text())
    })
    // an authenticator without a passkey for this site: the background request waits, the button's fails
    await addVirtualAuthenticator(page)
    let asked = 0
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === OPTIONS_PATH) asked++
    })
    await page.goto(`${base}/login`)
    await expect.poll(() => asked, WAIT).toBe(1)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toBe('No passkey was used. Try again, or sign in with your password.')
    // the button's own options, then the background request's again
    await expect.poll(() => asked, WAIT).toBe(3)
    expect(console).toEqual([])
    await page.close()
  })

  it('signs in when the person picks their passkey from the email field (conditional mediation)', async () => {
    const page = await e2e.browser.newPage()
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page)
    const email = freshEmail('autofill-pick')
    await signUpInBrowser(page, base, email)
    await confirmEmailInBrowser(page, e2e.stack.smtp, email)
    const section = page.getByRole('region', { name: 'Passkeys' })
    await section.getByRole('button', { name: 'Add a passkey' }).click()
    await expect.poll(() => section.getByTestId('passkey-list').locator('li').count(), WAIT).toBe(1)
    // the passkey leaves with its authenticator while signing out (else the login page would use it at once)
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId })
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    // away from the login page while the authenticator comes back: the request that page keeps
    // waiting would take the credential at once, and the visit below would count a second sign-in
    await page.goto('about:blank')

    const { authenticatorId: again } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    })
    await cdp.send('WebAuthn.addCredential', { authenticatorId: again, credential: credentials[0]! })
    let verified = 0
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/auth/passkeys/login/verify') verified++
    })
    // Chromium's virtual authenticator answers a conditional request at once with its one
    // discoverable credential: it stands in for the person picking it in the email field's autofill
    await page.goto(`${base}/login`)
    await page.waitForURL(`${base}/account`)
    await expect.poll(() => page.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
    expect(verified).toBe(1)
    await page.goto(`${base}/account/security`)
    await expect.poll(() => section.getByText('last used', { exact: false }).isVisible(), WAIT).toBe(true)
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: again })
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.close()
  })
})
