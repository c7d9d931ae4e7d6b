/**
 * API tokens in the browser: create (raw token shown once, copyable) -> a resource server verifies it
 * with fetch through the IAM's public route -> rotate -> revoke.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIamClient } from '../../iam/client/iam-client'
import { launchBrowser, saveScreenshot, type Browser } from '../helpers/browser'
import { freshEmail, hmac, signUpInBrowser, startE2eStack, watchCsp, type E2eStack, WAIT } from './auth-stack'

let stack: E2eStack
let browser: Browser
beforeAll(async () => {
  stack = await startE2eStack()
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await stack?.stop()
})

describe('API tokens page', () => {
  it('create -> verify with fetch -> rotate -> revoke', async () => {
    const page = await browser.newPage()
    const csp = watchCsp(page)
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url })
    await signUpInBrowser(page, stack.url, freshEmail('tokens'))
    await page.goto(`${stack.url}/tokens`)
    const verifier = createIamClient({ baseUrl: stack.iam.url, hmac })
    const verify = async (key: string) =>
      (await verifier.request({ method: 'GET', path: '/api/public/verify', query: { privilege: 'full' }, headers: { 'x-api-key': key } })).status

    await page.getByLabel('Name', { exact: true }).fill('deploy bot')
    await page.getByLabel('Privilege', { exact: true }).first().selectOption('full')
    await page.getByRole('button', { name: 'Create token' }).click()
    const rawInput = page.getByLabel('Token', { exact: true })
    await expect.poll(() => rawInput.inputValue(), WAIT).toMatch(/^api_/)
    const rawToken = await rawInput.inputValue()
    await page.getByRole('button', { name: 'Copy token' }).click()
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), WAIT).toBe(rawToken)
    expect(await verify(rawToken)).toBe(200)

    // the list shows the use just made
    await page.getByRole('button', { name: 'I have saved it' }).click()
    await page.reload()
    await expect.poll(() => page.getByText('Used', { exact: true }).locator('xpath=following-sibling::dd[1]').textContent(), WAIT).toBe('1 time')

    await page.getByRole('button', { name: 'Rotate' }).click()
    await expect.poll(async () => ((await rawInput.count()) ? rawInput.inputValue() : ''), WAIT).toMatch(/^api_/)
    const rotated = await rawInput.inputValue()
    expect(rotated).not.toBe(rawToken)
    expect(await verify(rawToken)).toBe(401)
    expect(await verify(rotated)).toBe(200)
    await page.getByRole('button', { name: 'I have saved it' }).click()

    await page.getByRole('button', { name: 'Revoke deploy bot' }).click()
    await page.getByRole('button', { name: /Yes, revoke/ }).click()
    await expect.poll(() => page.getByText('You have no active tokens yet.').isVisible(), WAIT).toBe(true)
    expect(await verify(rotated)).toBe(401)
    expect(csp).toEqual([])
    await saveScreenshot(page, 'tokens-after-revoke')
  })
})
