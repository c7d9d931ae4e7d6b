/**
 * Sign-in by email in Chromium against the real stack (config signIn on): the link opened in the
 * browser that asked, the link opened in another browser (refused there, unspent, and the same
 * mail's code typed in the first browser), and the code typed on the sign-in page.
 */
import { describe, expect, it } from 'vitest'
import { saveScreenshot } from '../helpers/browser'
import { codeOf, magicLinkOf, recipients } from '../helpers/smtp'
import { freshEmail, mailTo, PASSWORD, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT } from './auth-stack'

// the proof-of-work check on as in production (its cost at the minimum): the sign-up and the email requests solve it in the page
const e2e = useE2eStack({ iamConfig: () => ({ signIn: { emailLink: true, emailCode: true }, botChallenge: { enabled: true, maxNumber: 1000 } }) }, { browsers: [] })

async function signedOutAccount() {
  const browser = await e2e.launchForTest()
  const page = await browser.newPage()
  const email = freshEmail('email-sign-in')
  await signUpInBrowser(page, e2e.stack.url, email)
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(/\/login/)
  await page.getByLabel('Email', { exact: true }).fill(email)
  return { page, email }
}

describe('sign-in by email in the browser', () => {
  it('signs in with the mailed link opened in the same browser', async () => {
    const { page, email } = await signedOutAccount()
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await expect.poll(() => page.getByText(`If an account exists for ${email}, we sent it a sign-in link.`).isVisible(), WAIT).toBe(true)
    const link = magicLinkOf(await mailTo(e2e.stack.smtp, email, '/auth/email-sign-in'))
    expect(link.origin).toBe(e2e.stack.url)
    await page.goto(link.toString())
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
    await saveScreenshot(page, 'email-sign-in-link')
  })

  it('signs in with the mailed code typed on the sign-in page', async () => {
    const { page, email } = await signedOutAccount()
    await page.getByRole('button', { name: 'Email me a code' }).click()
    const field = page.getByLabel('Code from the mail (7 digits)')
    await expect.poll(() => field.isVisible(), WAIT).toBe(true)
    const mail = await e2e.stack.smtp.waitForMail((m) => recipients(m).includes(email) && (m.subject ?? '').includes('sign-in link'), 15_000)
    await field.fill(codeOf(mail))
    await page.getByRole('button', { name: 'Sign in with the code' }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
    await saveScreenshot(page, 'email-sign-in-code')
  })
})

describe('the bot check on password sign-in after failures, in the browser', () => {
  it('solves the check when the IAM asks for it after three wrong passwords and signs in with the same click', async () => {
    const { page } = await signedOutAccount()
    const answers: number[] = []
    page.on('response', (res) => {
      if (new URL(res.url()).pathname === '/api/auth/login') answers.push(res.status())
    })
    const password = page.getByLabel('Password', { exact: true })
    const signIn = page.getByRole('button', { name: 'Sign in', exact: true })
    for (let i = 1; i <= 3; i++) {
      await password.fill(`not the password ${i}`)
      await signIn.click()
      await expect.poll(() => answers.length, WAIT).toBe(i)
    }
    await password.fill(PASSWORD)
    await signIn.click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    // the fourth attempt was asked for the check, solved in the page and sent again
    expect(answers).toEqual([401, 401, 401, 400, 200])
  })
})

// last: the link refused in the other browser is a failed sign-in of this machine's address, which
// the bot check on password sign-in above counts (three failures ask for it)
describe('a sign-in link opened in another browser', () => {
  it('opened in another browser, the link signs nobody in there and says what to do; the same mail code then signs in the first browser, at 390 px', async () => {
    const { page, email } = await signedOutAccount()
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
    await expect.poll(() => page.getByText(`If an account exists for ${email}, we sent it a sign-in link.`, { exact: false }).isVisible(), WAIT).toBe(true)
    const mail = await mailTo(e2e.stack.smtp, email, '/auth/email-sign-in')
    // the mail forwarded to, or opened on, another device: a browser with nothing of the first one
    const elsewhere = await (await e2e.launchForTest()).newPage()
    await elsewhere.setViewportSize({ width: 390, height: 844 })
    // with JavaScript the page finishes at once: the IAM finds another device and spends nothing
    await elsewhere.goto(magicLinkOf(mail).toString())
    const refusal = elsewhere.getByTestId('email-sign-in-other-device')
    await expect.poll(() => refusal.isVisible(), WAIT).toBe(true)
    expect(await refusal.textContent()).toContain('This link only works in the browser where you asked for it.')
    expect(await seriousA11yViolations(elsewhere)).toEqual([])
    const there = await (await elsewhere.request.get(`${e2e.stack.url}/api/auth/session`)).json()
    expect(there).toMatchObject({ authenticated: false })
    // back in the first browser: the code of the same mail
    await page.getByLabel('Code from the mail (7 digits)').fill(codeOf(mail))
    await page.getByRole('button', { name: 'Sign in with the code' }).click()
    await page.waitForURL(`${e2e.stack.url}/account`)
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
  })
})
