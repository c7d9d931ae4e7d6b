/**
 * A team's own Nuxt app extending the gateway as a layer (examples/nuxt-app), in Chromium: its own
 * home page replaces the gateway's, the gateway's sign-up and login pages still serve it, its
 * protected page sends a signed-out person to sign in and back, and its own server route knows the
 * user through requireUser.
 */
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildIfStaleAsync, EXAMPLE_APP, ROOT } from '../../scripts/lib/build.ts'
import { ordersApi } from '../../examples/api/server.mjs'
import { freePort, freshEmail, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT } from './auth-stack'

const output = join(ROOT, 'examples', 'nuxt-app', '.output')
let api: Server
/** what the example API received */
const seen: Array<{ authorization?: string; cookie?: string }> = []

const e2e = useE2eStack(
  async () => {
    // the example's own build, never with the gateway test build's compiled-in test routes
    await buildIfStaleAsync(EXAMPLE_APP, output, { GATEWAY_TEST_BUILD: '', EXAMPLE_OUTPUT_DIR: output })
    // the example API, taking the session tokens the gateway's proxy sends (keys at the gateway's /.well-known/jwks.json)
    const gatewayPort = await freePort()
    // the proxy sends the API a token of the API's own audience (apis[].audience), which the IAM issues for
    const ordersAudience = 'https://orders.example-app.test'
    const listener = ordersApi({
      issuer: 'http://unused.example/oidc',
      audience: 'unused',
      session: { issuer: 'http://127.0.0.1:3001', audience: ordersAudience, jwksUri: `http://127.0.0.1:${gatewayPort}/.well-known/jwks.json` },
    })
    api = createServer((req, res) => {
      seen.push({ authorization: req.headers.authorization, cookie: req.headers.cookie })
      return listener(req, res)
    })
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve))
    const apiPort = (api.address() as { port: number }).port
    return {
      gatewayEntry: join(output, 'server', 'index.mjs'),
      gatewayPort,
      gatewayConfig: { apis: [{ name: 'orders', upstream: `http://127.0.0.1:${apiPort}`, audience: ordersAudience }] },
      iamConfig: () => ({ jwt: { api_access_tokens: { audiences: [ordersAudience] } } }),
    }
  },
  { timeout: 300_000 },
)
afterAll(async () => {
  await new Promise((resolve) => api?.close(resolve))
})

describe('an app that extends the gateway', () => {
  it('serves its own home page in place of the gateway\'s, and the gateway\'s pages it does not override', async () => {
    const page = await e2e.browser.newPage()
    await page.goto(`${e2e.stack.url}/`)
    expect(await page.getByRole('heading', { name: 'Example app' }).isVisible()).toBe(true)
    await page.goto(`${e2e.stack.url}/login`)
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).toBe(true)
  })

  it('answers 401 on its own server route for nobody signed in', async () => {
    const res = await fetch(`${e2e.stack.url}/api/hello`, { headers: { accept: 'application/json' } })
    expect(res.status).toBe(401)
  })

  it('sends a signed-out person from its protected page to sign in, and its server route knows them afterwards', async () => {
    const page = await e2e.browser.newPage()
    await page.goto(`${e2e.stack.url}/dashboard`)
    await page.waitForURL(/\/login\?returnTo=%2Fdashboard|\/login\?returnTo=\/dashboard/)
    const email = freshEmail('layer')
    await signUpInBrowser(page, e2e.stack.url, email)
    await page.goto(`${e2e.stack.url}/dashboard`)
    const hello = page.getByTestId('hello')
    await expect.poll(() => hello.textContent(), WAIT).toBe(`Hello ${email}`)
    // the example API, through the gateway's proxy: it verified the Bearer token against our keys
    const fromApi = page.getByTestId('orders')
    await expect.poll(() => fromApi.isVisible(), WAIT).toBe(true)
    expect(JSON.parse((await fromApi.textContent()) ?? '{}')).toMatchObject({ roles: ['user'] })
    const call = seen.at(-1)!
    expect(call.authorization).toMatch(/^Bearer ey/)
    expect(call.cookie).toBeUndefined()
    // the browser never held the token: its cookies are HttpOnly and no page script can read them
    expect(await page.evaluate(() => document.cookie)).not.toContain(call.authorization!.slice(7))
    expect(await seriousA11yViolations(page)).toEqual([])
  })

  it('tells a signed-in person how to start the example API when it is not running', async () => {
    const page = await e2e.browser.newPage()
    await signUpInBrowser(page, e2e.stack.url, freshEmail('noapi'))
    // the last test of the file: the example API stops for good
    await new Promise((resolve) => api.close(resolve))
    api.closeAllConnections()
    await page.goto(`${e2e.stack.url}/dashboard`)
    await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toContain('node examples/api/server.mjs')
    expect(await page.getByTestId('orders').count()).toBe(0)
  })
})
