/**
 * API tokens in the browser: create (raw token shown once, copyable) -> a resource server verifies it
 * with fetch through the IAM's public route -> rotate -> the page's verify command through the
 * gateway, a privilege change seen on the card -> revoke.
 */
import { describe, expect, it } from 'vitest'
import { createIamClient } from '../../iam/client/iam-client'
import { saveScreenshot } from '../helpers/browser'
import { freshEmail, hmac, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const e2e = useE2eStack()

describe('API tokens page', () => {
  it('create -> verify with fetch -> rotate -> the page\'s verify command works and a privilege change shows on the card -> revoke', async () => {
    const page = await e2e.browser.newPage()
    const csp = watchCsp(page)
    await e2e.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.stack.url })
    await signUpInBrowser(page, e2e.stack.url, freshEmail('tokens'))
    await page.goto(`${e2e.stack.url}/tokens`)
    const verifier = createIamClient({ baseUrl: e2e.stack.iam.url, hmac })
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
    await expect.poll(() => page.getByText('Times used', { exact: true }).locator('xpath=following-sibling::dd[1]').textContent(), WAIT).toBe('1')

    await page.getByRole('button', { name: 'Rotate' }).click()
    await expect.poll(async () => ((await rawInput.count()) ? rawInput.inputValue() : ''), WAIT).toMatch(/^api_/)
    const rotated = await rawInput.inputValue()
    expect(rotated).not.toBe(rawToken)
    expect(await verify(rawToken)).toBe(401)
    expect(await verify(rotated)).toBe(200)
    await page.getByRole('button', { name: 'I have saved it' }).click()

    // the page's own command reaches the gateway's public route, and the card follows a privilege change without a reload
    const command = (await page.locator('section[aria-labelledby="verify-heading"] pre').textContent()) ?? ''
    expect(command).toBe(`curl -H "x-api-key: <token>" "${e2e.stack.url}/api/public/verify?privilege=full"`)
    await page.getByRole('button', { name: 'Copy command' }).click()
    await expect.poll(() => page.getByText('Command copied.').isVisible(), WAIT).toBe(true)
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command)
    const commandUrl = /"(http[^"]+)"$/.exec(command)![1]!
    const viaGateway = async (url: string) => (await fetch(url, { headers: { 'x-api-key': rotated } })).status
    expect(await viaGateway(commandUrl)).toBe(200)
    await page.getByLabel('Privilege', { exact: true }).last().selectOption('restricted')
    await page.getByRole('button', { name: 'Save privilege deploy bot' }).click()
    const cardValue = (term: string) => page.locator('li.token dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]').textContent()
    await expect.poll(() => cardValue('Privilege'), WAIT).toBe('restricted')
    // one check by the resource server and one by the command since the rotation, with no page reload
    expect(await cardValue('Times used')).toBe('2')
    expect(await viaGateway(commandUrl)).toBe(401)
    expect(await viaGateway(commandUrl.replace('privilege=full', 'privilege=restricted'))).toBe(200)
    // the page's command follows: it asks for the privilege the token holds now
    await expect.poll(() => page.locator('section[aria-labelledby="verify-heading"] pre').textContent(), WAIT).toContain('privilege=restricted"')

    await page.getByRole('button', { name: 'Revoke deploy bot' }).click()
    await page.getByRole('button', { name: /Yes, revoke/ }).click()
    await expect.poll(() => page.getByText('You have no active tokens yet.').isVisible(), WAIT).toBe(true)
    expect(await verify(rotated)).toBe(401)
    expect(csp).toEqual([])
    await saveScreenshot(page, 'tokens-after-revoke')
  })
})
