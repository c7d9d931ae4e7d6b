/**
 * The browser tests' stack: SMTP capture, the built IAM (HMAC, SMTP, magic links pointing at the
 * gateway) and the built gateway on a port chosen up front (the IAM puts it into mailed links),
 * plus page helpers shared by the auth, account, tokens and a11y tests.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CDPSession, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { launchBrowser, type Browser, type LaunchOptions } from '../helpers/browser'
import { ROOT } from '../helpers/build'
import { freePort } from '../helpers/fake-iam'
import { startGateway, type GatewayServer } from '../helpers/gateway-server'
import { startIam, type IamServer } from '../helpers/iam-server'
import { recipients, startSmtp, type ParsedMail, type SmtpCapture } from '../helpers/smtp'

export const hmac = { clientId: 'gateway', sharedSecret: 'e2e-test-shared-secret-0123456789abcdef' }
export const PASSWORD = 'correct horse battery staple 42'
/** expect.poll options for anything that waits on the servers (the default 1 s is too short on a loaded 2-core machine) */
export const WAIT = { timeout: 20_000, interval: 200 }

export interface E2eStack {
  iam: IamServer
  gateway: GatewayServer
  smtp: SmtpCapture
  url: string
  stop(): Promise<void>
}

/** A port free on 127.0.0.1 now, from below the kernel's ephemeral range (fake-iam.ts says why): two files run at once, and a port from listen(0) may be taken by the other's servers before the gateway listens. */
export { freePort }

const generous = (points: number) => ({ points, duration: 60, blockDuration: 1 })

export interface E2eStackOptions {
  iamConfig?: (port: number) => Record<string, unknown>
  iamEnv?: Record<string, string>
  gatewayEnv?: Record<string, string>
  /** gateway config keys beside `iam` and `cookieSecret` (`apis`, ...) */
  gatewayConfig?: Record<string, unknown>
  /** the server entry of an app that extends the gateway, instead of the gateway's */
  gatewayEntry?: string
  /** the gateway's port, when something started before it must know it */
  gatewayPort?: number
}

/** SMTP + IAM + gateway, wired together; `iamConfig` adds top-level IAM config keys that need the gateway's port. */
export async function startE2eStack(options: E2eStackOptions = {}): Promise<E2eStack> {
  const smtp = await startSmtp()
  const port = options.gatewayPort ?? (await freePort())
  const url = `http://127.0.0.1:${port}`
  const iam = await startIam({
    config: {
      service: { Hmac: hmac, proxy: { trust: true, ipToTrust: '127.0.0.1' } },
      email: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false } },
      magic_links: { domain: url },
      rate_limiters: {
        apiTokensLimiters: { generalUnionLimiter: { burst: generous(1000), slow: generous(1000) } },
        signup: generous(100),
        login: generous(100),
      },
      ...options.iamConfig?.(port),
    },
    ...(options.iamEnv ? { env: options.iamEnv } : {}),
  })
  const gateway = await startGateway({
    port,
    config: { iam: { url: iam.url, hmac }, cookieSecret: 'e2e-test-cookie-secret-0123456789abcdef01', ...options.gatewayConfig },
    ...(options.gatewayEnv ? { env: options.gatewayEnv } : {}),
    ...(options.gatewayEntry ? { entry: options.gatewayEntry } : {}),
  })
  return {
    iam,
    gateway,
    smtp,
    url,
    async stop() {
      await gateway.stop()
      await iam.stop()
      await smtp.stop()
    },
  }
}

/** What `useE2eStack` hands a test file; each accessor throws until the file's `beforeAll` has run. */
export interface E2eFile<Name extends string, Stack extends E2eStack = E2eStack> {
  readonly stack: Stack
  /** the file's browser (the first of `browsers`) */
  readonly browser: Browser
  /** the file's browsers by name, each with its own profile (its own cookies) */
  readonly browsers: Readonly<Record<Name, Browser>>
  /** a browser for the running test alone, closed after it */
  launchForTest(options?: LaunchOptions): Promise<Browser>
}

/**
 * Registers the hooks every browser test file needs: `beforeAll` starts the stack (with `options`, or
 * what the function returns once whatever it starts first is up) and launches the named browsers;
 * `afterEach` closes the browsers of `launchForTest`; `afterAll` closes the browsers and stops the stack.
 */
export function useE2eStack<Name extends string = 'browser', Stack extends E2eStack = E2eStack>(
  options: E2eStackOptions | (() => Promise<E2eStackOptions>) = {},
  setup: {
    /** the browsers launched for the whole file; default one, `browser`; none when each test launches its own */
    browsers?: readonly Name[]
    /** the `beforeAll` timeout, when it does more than start the stack */
    timeout?: number
    /** what starts the stack, when it is more than `startE2eStack` (e.g. tests/helpers/oidc-op.ts's startOpStack) */
    start?: (options: E2eStackOptions) => Promise<Stack>
  } = {},
): E2eFile<Name, Stack> {
  const names = setup.browsers ?? (['browser'] as unknown as readonly Name[])
  const start = setup.start ?? (startE2eStack as (options: E2eStackOptions) => Promise<Stack>)
  let stack: Stack | undefined
  const browsers = new Map<Name, Browser>()
  let testBrowsers: Browser[] = []
  beforeAll(async () => {
    stack = await start(typeof options === 'function' ? await options() : options)
    const launched = await Promise.all(names.map(() => launchBrowser()))
    names.forEach((name, i) => browsers.set(name, launched[i]!))
  }, setup.timeout)
  afterEach(async () => {
    const closing = testBrowsers
    testBrowsers = []
    for (const browser of closing) await browser.close()
  })
  afterAll(async () => {
    for (const browser of browsers.values()) await browser.close()
    await stack?.stop()
  })
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is there once the file's beforeAll has run`)
    return value
  }
  const named = {} as Record<Name, Browser>
  for (const name of names) Object.defineProperty(named, name, { enumerable: true, get: () => started(browsers.get(name), `the browser ${name}`) })
  return {
    get stack() {
      return started(stack, 'the stack')
    },
    get browser() {
      return started(browsers.get(names[0]!), 'the browser')
    },
    browsers: named,
    async launchForTest(launchOptions) {
      const browser = await launchBrowser(launchOptions)
      testBrowsers.push(browser)
      return browser
    },
  }
}

let counter = 0
export const freshEmail = (tag = 'user') => `${tag}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`

/** The first mail to `email` whose text contains `path` (e.g. "/auth/mfa"). */
export const mailTo = (smtp: SmtpCapture, email: string, path: string): Promise<ParsedMail> =>
  smtp.waitForMail((m) => recipients(m).includes(email) && (m.text ?? '').includes(path), 15_000)

/** Collects CSP violations the page reports in its console (the page CSP must allow all it needs). */
export function watchCsp(page: Page): string[] {
  const violations: string[] = []
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text())
  })
  return violations
}

/**
 * Resolves once the strength meter under a new password says its word (components/PasswordStrengthMeter.vue).
 * Its estimator loads on the first character typed, and when it lands the meter's bar and advice
 * push everything below them down: a click aimed before then can land beside its target.
 */
export async function passwordMeterSettled(page: Page): Promise<void> {
  await expect.poll(() => page.getByText(/^Strength: /).first().isVisible(), { ...WAIT, message: 'the password strength meter' }).toBe(true)
}

/** Signs up through /signup and waits for the account page. */
export async function signUpInBrowser(page: Page, base: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/signup`)
  await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByLabel('Repeat the password').fill(password)
  await passwordMeterSettled(page)
  await page.getByLabel('I accept the terms of service').check()
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.waitForURL(`${base}/account`)
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
}

/**
 * Confirms the address as its owner does, in the browser that signed up: opens the verification
 * link from the mail and presses the button, then goes to the account's security part
 * (pages/account/security.vue): adding two-step sign-in or a passkey needs a confirmed address.
 */
export async function confirmEmailInBrowser(page: Page, smtp: SmtpCapture, email: string): Promise<void> {
  const mail = await mailTo(smtp, email, '/auth/verify-email?')
  // opened on the origin the page is on (a test may browse localhost while links name 127.0.0.1)
  const link = new URL(/(https?:\/\/\S+\/auth\/verify-email\?\S+)/.exec(mail.text ?? '')![1]!)
  const here = new URL(page.url())
  link.protocol = here.protocol
  link.host = here.host
  await page.goto(link.toString())
  await page.getByRole('button', { name: 'Confirm my email address' }).click()
  await expect.poll(() => page.getByText('Your email address is confirmed.').isVisible(), WAIT).toBe(true)
  await page.goto(new URL('/account/security', here).toString())
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
}

/** Signs in through /login and waits for the account page. */
export async function signInInBrowser(page: Page, base: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/login`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(`${base}/account`)
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), WAIT).toBe(true)
}

/**
 * On an OpenID Provider's interaction page that found nobody signed in: follows the page's own
 * "Sign in" link, which carries the way back to the app (it comes once the page knows nobody is
 * signed in; the header's link, there from the start, leads to the account page instead), and
 * waits for the sign-in page. On a loaded machine a click can land while the page still settles
 * and lead nowhere (CI saw the wait time out with the link on screen, in two files): the link is
 * clicked again while it is still there, at most three times in all.
 */
export async function signInFromInteraction(page: Page): Promise<void> {
  const signIn = page.locator('#main').getByRole('link', { name: 'Sign in', exact: true })
  await expect.poll(() => signIn.isVisible(), WAIT).toBe(true)
  expect(await signIn.getAttribute('href')).toMatch(/^\/login\?returnTo=%2Finteraction%2F/)
  for (let attempt = 1; ; attempt++) {
    await signIn.click()
    try {
      await page.waitForURL(/\/login\?returnTo=%2Finteraction%2F/, { timeout: 10_000 })
      return
    } catch (error) {
      if (attempt === 3 || !(await signIn.isVisible())) throw error
    }
  }
}

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: Array<{ target: unknown }>
}

/** axe-core's serious and critical violations of the current page (injected through the debugger, so the page CSP stays on). */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${AXE_SOURCE};0`)
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe
    const { violations } = await axe.run()
    return violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }))
  })
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** A CDP virtual authenticator on `page` (internal, resident keys, user verified) for WebAuthn ceremonies. */
export async function addVirtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  })
  return { cdp, authenticatorId }
}
