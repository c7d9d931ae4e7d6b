/**
 * `npm start` names one host for the gateway, and everything a browser is sent to uses it: the IAM
 * and the gateway run here with the configs scripts/start.mjs generates (devConfigs, for the ports
 * startUrls prints), plus what a test needs (an SMTP capture instead of the outbox). A passkey
 * registered on the printed address signs in there, and the mailed link opens the same host, where
 * the session cookies are.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type Browser } from '../helpers/browser'
import { ROOT } from '../helpers/build'
import { startGateway, type GatewayServer } from '../helpers/gateway-server'
import { startIam, type IamServer } from '../helpers/iam-server'
import { magicLinkOf, startSmtp, type SmtpCapture } from '../helpers/smtp'
import { addVirtualAuthenticator, freePort, freshEmail, hmac, mailTo, signUpInBrowser, WAIT } from './auth-stack'

type Json = Record<string, unknown>
interface Ports {
  iam: number
  gateway: number
  demo: number
}
interface StartModule {
  startUrls(ports: Ports): { gateway: string; iam: string; demo: string }
  devConfigs(input: Json): { iam: Json; gateway: Json }
  banner(config: { iamConfig: string; gatewayConfig: string }, demo: undefined, urls: { gateway: string; iam: string; demo: string }): string[]
}
// a computed specifier: scripts/start.mjs is plain JavaScript without type declarations
const start = (await import(pathToFileURL(join(ROOT, 'scripts', 'start.mjs')).href)) as StartModule

let smtp: SmtpCapture
let iam: IamServer
let gateway: GatewayServer
let browser: Browser | undefined
/** the gateway's address as `npm start` prints it */
let printed: URL

beforeAll(async () => {
  smtp = await startSmtp()
  const ports = { iam: await freePort(), gateway: await freePort(), demo: await freePort() }
  const urls = start.startUrls(ports)
  const line = start.banner({ iamConfig: 'iam.json', gatewayConfig: 'gateway.json' }, undefined, urls).find((l) => l.includes('open this'))
  printed = new URL(/http:\/\/\S+/.exec(line ?? '')?.[0] ?? 'http://missing.invalid')
  const generated = start.devConfigs({ iamUrl: urls.iam, gatewayUrl: urls.gateway, gatewayIp: '127.0.0.1', hmac, cookieSecret: 'e2e-test-cookie-secret-0123456789abcdef01', demo: undefined })
  iam = await startIam({
    config: { ...generated.iam, email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } } },
    env: { PORT: String(ports.iam) },
  })
  gateway = await startGateway({ port: ports.gateway, config: generated.gateway })
})
afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
  await iam?.stop()
  await smtp?.stop()
})

describe('the address npm start prints', () => {
  it('is a host name, not an IP address, and the servers still listen on loopback only', () => {
    expect(printed.hostname).toBe('localhost')
    expect(gateway.url).toBe(`http://127.0.0.1:${printed.port}`)
  })

  it('registers a passkey and signs in with it; the mailed link opens the same host, where the session is', async () => {
    browser = await launchBrowser()
    const page = await browser.newPage()
    await addVirtualAuthenticator(page)
    const email = freshEmail('start-host')
    await signUpInBrowser(page, printed.origin, email)

    // sign-up mails a verification link: it must lead to the printed host, where this browser is signed in
    const link = magicLinkOf(await mailTo(smtp, email, '/auth/verify-email'))
    expect(link.origin).toBe(printed.origin)

    const section = page.getByRole('region', { name: 'Passkeys' })
    await page.goto(link.toString())
    await page.getByRole('button', { name: 'Confirm my email address' }).click()
    await expect.poll(() => page.getByText('Your email address is confirmed.').isVisible(), WAIT).toBe(true)

    await page.goto(`${printed.origin}/account`)
    await section.getByRole('button', { name: 'Add a passkey' }).click()
    await expect.poll(() => section.getByText('Passkey added.', { exact: false }).isVisible(), WAIT).toBe(true)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${printed.origin}/account`)
    await expect.poll(() => page.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
  })
})
