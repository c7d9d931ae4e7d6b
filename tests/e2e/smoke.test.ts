import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, saveScreenshot, type Browser } from '../helpers/browser'
import { startGateway, type GatewayServer } from '../helpers/gateway-server'
import { startIam, type IamServer } from '../helpers/iam-server'

const hmac = { clientId: 'gateway', sharedSecret: 'smoke-test-shared-secret-0123456789abcdef' }

let iam: IamServer
let gateway: GatewayServer
let browser: Browser

beforeAll(async () => {
  iam = await startIam({ config: { service: { Hmac: hmac } } })
  gateway = await startGateway({ config: { iam: { url: iam.url, hmac } } })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
  await iam?.stop()
})

describe('smoke', () => {
  it('the gateway index page loads in Chromium with its heading', async () => {
    const page = await browser.newPage()
    const res = await page.goto(gateway.url)
    expect(res?.status()).toBe(200)
    // the product name (pages/index.vue); other wording on the page may change
    expect(await page.title()).toMatch(/Identity/)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(/Identity/)
    const shot = await saveScreenshot(page, 'smoke-index')
    expect(existsSync(shot)).toBe(true)
  })

  it('the gateway reports the IAM healthy from the browser', async () => {
    const page = await browser.newPage()
    const res = await page.goto(`${gateway.url}/api/health`)
    expect(res?.status()).toBe(200)
    expect(await res?.json()).toEqual({ gateway: 'ok', iam: 'ok' })
  })
})
