/**
 * `npm start` names one host for the gateway, and everything a browser is sent to uses it: the IAM
 * and the gateway run here with the configs scripts/start.mjs generates (devConfigs, for the ports
 * startUrls prints), plus what a test needs (an SMTP capture instead of the outbox). A passkey
 * registered on the printed address signs in there, and the mailed link opens the same host, where
 * the session cookies are. Before the IAM starts, npm start registers the "Demo app" OpenID client
 * with the admin CLI (ensureDemoClient) and prints it with the discovery URL, whose issuer is the
 * printed host + /oidc.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type Browser } from '../helpers/browser'
import { IAM_TEST_BUILD, ROOT } from '../helpers/build'
import { startGateway, type GatewayServer } from '../helpers/gateway-server'
import { envWithoutStoreUrls, startIam, type IamServer } from '../helpers/iam-server'
import { magicLinkOf, startSmtp, type SmtpCapture } from '../helpers/smtp'
import { addVirtualAuthenticator, freePort, freshEmail, hmac, mailTo, signUpInBrowser, WAIT } from './auth-stack'

type Json = Record<string, unknown>
interface Ports {
  iam: number
  gateway: number
  demo: number
}
interface DemoClient {
  clientId: string
  clientSecret: string
  file: string
}
interface StartModule {
  startUrls(ports: Ports): { gateway: string; iam: string; demo: string }
  devConfigs(input: Json): { iam: Json; gateway: Json }
  banner(
    config: { iamConfig: string; gatewayConfig: string },
    demo: undefined,
    urls: { gateway: string; iam: string; demo: string },
    openid?: { issuer: string; client?: DemoClient },
  ): string[]
  DEMO_CLIENT: { name: string; redirectUri: string; postLogoutRedirectUri: string }
  cliEntryOf(output: string): string
  iamSettings(iamConfig: string, urls: { gateway: string; iam: string; demo: string }): { dataDir: string; issuer: string }
  ensureDemoClient(input: { cliEntry: string; env: NodeJS.ProcessEnv; dataDir: string; issuer: string }): Promise<DemoClient>
}
// a computed specifier: scripts/start.mjs is plain JavaScript without type declarations
const start = (await import(pathToFileURL(join(ROOT, 'scripts', 'start.mjs')).href)) as StartModule

let smtp: SmtpCapture
let iam: IamServer
let gateway: GatewayServer
let browser: Browser | undefined
/** the gateway's address as `npm start` prints it */
let printed: URL
/** the IAM's data dir (PGlite database, dev secrets, the demo client's file) */
let dataDir: string
let bannerLines: string[]
/** what three starts on one data dir registered: the first, a restart, a restart after the kept file was lost */
let demoClients: DemoClient[]

beforeAll(async () => {
  smtp = await startSmtp()
  const ports = { iam: await freePort(), gateway: await freePort(), demo: await freePort() }
  const urls = start.startUrls(ports)
  const generated = start.devConfigs({ iamUrl: urls.iam, gatewayUrl: urls.gateway, gatewayIp: '127.0.0.1', hmac, cookieSecret: 'e2e-test-cookie-secret-0123456789abcdef01', demo: undefined })

  // the generated IAM config on a data dir of its own, as npm start's CLI run and IAM share .data
  dataDir = mkdtempSync(join(tmpdir(), 'start-host-'))
  const databaseUrl = `file://${join(dataDir, 'db')}`
  const iamConfig = join(dataDir, 'iam.config.json')
  const service = { ...(generated.iam.service as Json), dataDir }
  writeFileSync(iamConfig, JSON.stringify({ ...generated.iam, service, database: { url: databaseUrl }, storage: { driver: 'memory' } }))
  const parentEnv = envWithoutStoreUrls()
  const settings = start.iamSettings(iamConfig, urls)
  const ensure = () => start.ensureDemoClient({ cliEntry: start.cliEntryOf(IAM_TEST_BUILD.output), env: { ...parentEnv, NODE_ENV: 'development', IAM_CONFIG: iamConfig }, dataDir: settings.dataDir, issuer: settings.issuer })
  const first = await ensure()
  const restart = await ensure()
  unlinkSync(first.file)
  const lostFile = await ensure()
  demoClients = [first, restart, lostFile]

  bannerLines = start.banner({ iamConfig: 'iam.json', gatewayConfig: 'gateway.json' }, undefined, urls, { issuer: settings.issuer, client: lostFile })
  const line = bannerLines.find((l) => l.includes('open this'))
  printed = new URL(/http:\/\/\S+/.exec(line ?? '')?.[0] ?? 'http://missing.invalid')
  iam = await startIam({
    config: { ...generated.iam, service, email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } } },
    share: { databaseUrl, storagePrefix: 'start-host' },
    env: { PORT: String(ports.iam) },
  })
  gateway = await startGateway({ port: ports.gateway, config: generated.gateway })
})
afterAll(async () => {
  await browser?.close()
  await gateway?.stop()
  await iam?.stop()
  await smtp?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
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

    await page.goto(`${printed.origin}/account/security`)
    await section.getByRole('button', { name: 'Add a passkey' }).click()
    await expect.poll(() => section.getByText('Passkey added.', { exact: false }).isVisible(), WAIT).toBe(true)
    // the button, as in a browser without passkey autofill: Chromium's virtual authenticator answers
    // the login page's background (conditional) request at once, which would sign in before the
    // click (tests/e2e/passkey-autofill.test.ts covers that way in); set in this document, as
    // signing out moves to the login page without loading a new one
    await page.evaluate(() => Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', { value: () => Promise.resolve(false) }))
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/login/)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${printed.origin}/account`)
    await expect.poll(() => page.locator('#main').getByText(email).isVisible(), WAIT).toBe(true)
  })
})

describe('the OpenID Provider npm start prints', () => {
  it('answers discovery through the gateway with the printed host + /oidc as issuer, the URL the banner prints', async () => {
    const discovery = `${printed.origin}/oidc/.well-known/openid-configuration`
    expect(bannerLines.join('\n')).toContain(discovery)
    const res = await fetch(`${gateway.url}/oidc/.well-known/openid-configuration`)
    expect(res.status).toBe(200)
    const metadata = (await res.json()) as { issuer: string; token_endpoint: string }
    expect(metadata.issuer).toBe(`${printed.origin}/oidc`)
    expect(metadata.token_endpoint).toBe(`${printed.origin}/oidc/token`)
  })

  it('registers the demo client once, keeps its secret across restarts (a new one when the kept file is lost), names the issuer and redirect URI the second app needs, and prints its id, secret and the command', () => {
    const [first, restart, lostFile] = demoClients
    expect(restart).toEqual(first)
    expect(lostFile!.clientId).toBe(first!.clientId)
    expect(lostFile!.clientSecret).not.toBe(first!.clientSecret)
    expect(statSync(lostFile!.file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(lostFile!.file, 'utf8'))).toEqual({ clientId: lostFile!.clientId, clientSecret: lostFile!.clientSecret, issuer: `${printed.origin}/oidc`, redirectUri: start.DEMO_CLIENT.redirectUri })
    const printedText = bannerLines.join('\n')
    expect(printedText).toContain(lostFile!.clientId)
    expect(printedText).toContain(lostFile!.clientSecret)
    expect(printedText).toContain(start.DEMO_CLIENT.redirectUri)
    expect(printedText).toContain('node examples/second-app/server.mjs')
  })

  it("accepts the demo client's redirect URI and its printed secret through the gateway", async () => {
    const client = demoClients[2]!
    const authorize = new URL(`${gateway.url}/oidc/auth`)
    authorize.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: start.DEMO_CLIENT.redirectUri,
      response_type: 'code',
      scope: 'openid email',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString()
    const started = await fetch(authorize, { redirect: 'manual' })
    // a registered client and redirect URI: on to the sign-in interaction, not an error page
    expect(started.status).toBe(303)
    expect(new URL(started.headers.get('location')!, gateway.url).pathname).toMatch(/^\/interaction\//)
    const token = (secret: string) =>
      fetch(`${gateway.url}/oidc/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: start.DEMO_CLIENT.redirectUri, code_verifier: 'x'.repeat(43) }),
      })
    // authenticated, so the made-up code is what is refused; the replaced secret is not accepted
    const right = await token(client.clientSecret)
    expect(right.status).toBe(400)
    expect(((await right.json()) as { error: string }).error).toBe('invalid_grant')
    expect((await token(demoClients[0]!.clientSecret)).status).toBe(401)
  })
})
