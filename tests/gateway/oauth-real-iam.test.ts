/**
 * The whole chain with the real services: browser -> gateway -> oidc-provider -> gateway -> the
 * built IAM (HMAC on, its GET /check and POST /auth/OAuth/:providerName). Runs on PGlite + memory,
 * or on PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set.
 */
import { randomBytes } from 'node:crypto'
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose'
import { Secret, TOTP } from 'otpauth'
import { createIamClient } from '../../iam/client/iam-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/fake-iam'
import { startIam, type IamServer } from '../helpers/iam-server'
import { flushedLogs } from '../helpers/logs'
import { setupGateway } from '../helpers/nuxt-gateway'
import { createBrowser, startOidcProvider, walkProvider, type OidcProvider } from '../helpers/oidc-provider'

let iam: IamServer
let op: OidcProvider
let hmac: { clientId: string; sharedSecret: string }
const CLIENT_SECRET = 'gw-real-secret-0123456789'
const COOKIE_SECRET = 'real-iam-test-cookie-secret-0123456789-abcdef'

const port = await freePort()
const base = `http://127.0.0.1:${port}`
let gatewayConfig: Record<string, unknown>

beforeAll(async () => {
  hmac = { clientId: 'gateway', sharedSecret: randomBytes(32).toString('hex') }
  // as `npm start` configures it: version 2 signatures only (the gateway's client always sends them)
  iam = await startIam({ config: { service: { Hmac: { ...hmac, requireBodyDigest: true } }, providers: [{ name: 'demo', useStandardProfile: true }] } })
  const client = {
    client_id: 'gw-real',
    client_secret: CLIENT_SECRET,
    redirect_uris: [`${base}/oauth/callback/demo`],
    token_endpoint_auth_method: 'client_secret_basic' as const,
  }
  op = await startOidcProvider([client])
  gatewayConfig = {
    iam: { url: iam.url, hmac },
    cookieSecret: COOKIE_SECRET,
    OAuthProviders: [
      {
        kind: 'oidc',
        name: 'demo',
        issuer: op.issuer,
        clientId: client.client_id,
        clientSecret: client.client_secret,
        redirectUri: client.redirect_uris[0],
        defaultScopes: ['openid', 'email', 'profile'],
        supportPKCE: true,
        redirectUrlOnSuccess: `${base}/account`,
        redirectUrlOnError: `${base}/auth/error`,
      },
    ],
  }
})

afterAll(async () => {
  await op?.stop()
  await iam?.stop()
})
const gw = await setupGateway({ port, config: () => gatewayConfig })

describe('OAuth login against the real IAM', () => {
  it('creates the account and leaves the browser with an IAM access token, a refresh session and its device cookie', async () => {
    const browser = createBrowser()
    const start = await browser.request(`${base}/oauth/demo`)
    expect(start.status).toBe(302)
    const canary = browser.cookies(base).get('canary_id')
    expect(canary).toMatch(/^[0-9a-f]{64}$/)
    const back = await walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/demo`, 'carol')
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    const res = await browser.request(back.url)
    expect(res.status).toBe(200)
    const jar = browser.cookies(base)
    expect(jar.get('canary_id')).toBe(canary)
    expect(jar.get('session')).toMatch(/^[\w-]{43}$/)
    // the IAM signs every route but /health from loopback: fetch its key set like the gateway would
    const jwks = await createIamClient({ baseUrl: iam.url, hmac }).request<JSONWebKeySet>({ method: 'GET', path: '/.well-known/jwks.json' })
    expect(jwks.status).toBe(200)
    const { payload } = await jwtVerify(jar.get('__Secure-a') ?? '', createLocalJWKSet(jwks.body!))
    expect(payload.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(Number(jar.get('a-iat'))).toBeGreaterThan(Date.now() - 60_000)
  })

  it('logs the same provider account in again (second login of an existing user)', async () => {
    const browser = createBrowser()
    const start = await browser.request(`${base}/oauth/demo`)
    const back = await walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/demo`, 'carol')
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    expect((await browser.request(back.url)).status).toBe(200)
  })
})

describe('OAuth login of an account with two-step sign-in', () => {
  const bff = (browser: ReturnType<typeof createBrowser>, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        cookie: [...browser.cookies(base)].map(([k, v]) => `${k}=${v}`).join('; '),
        origin: base,
        'sec-fetch-site': 'same-origin',
        'x-csrf': '1',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  async function providerLogin(login: string) {
    const browser = createBrowser()
    const start = await browser.request(`${base}/oauth/demo`)
    const back = await walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/demo`, login)
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    return { browser, page: await browser.request(back.url) }
  }

  it('asks for the second factor after the provider: no session until the code, the challenge only in the URL fragment', async () => {
    const first = await providerLogin('dave')
    expect(first.page.status).toBe(200)
    const setup = await bff(first.browser, '/api/auth/totp/setup')
    expect(setup.status).toBe(200)
    const { secret } = ((await setup.json()) as { data: { secret: string } }).data
    const code = (offset: number) =>
      new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offset * 30_000 })
    expect((await bff(first.browser, '/api/auth/totp/enable', { code: code(0) })).status).toBe(200)

    const again = await providerLogin('dave')
    expect(again.page.status).toBe(200)
    const html = await again.page.text()
    const challenge = /\/login#second-factor=([\w-]{43})/.exec(html)?.[1]
    expect(challenge).toBeDefined()
    expect(again.browser.cookies(base).get('session')).toBeUndefined()
    expect(again.browser.cookies(base).get('__Secure-a')).toBeUndefined()
    const done = await bff(again.browser, '/api/auth/second-factor', { challenge, code: code(1) })
    expect(done.status).toBe(200)
    expect(await done.json()).toEqual({ ok: true, date: expect.any(String), signedIn: true })
  })
})


describe('the logs of a sign-in', () => {
  it('hold none of the configured secrets and none of the tokens and codes the sign-in produced, in the gateway or the IAM', async () => {
    const browser = createBrowser()
    const start = await browser.request(`${base}/oauth/demo`)
    const flow = browser.cookies(base)
    const flowCookies = { state: flow.get('statedemo'), 'PKCE verifier': flow.get('pkce_vdemo'), nonce: flow.get('noncedemo') }
    const back = await walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/demo`, 'erin')
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    const code = new URL(back.url).searchParams.get('code')
    expect((await browser.request(back.url)).status).toBe(200)
    const jar = browser.cookies(base)
    const fromProvider = op.issued.at(-1) ?? {}
    const secrets: Record<string, unknown> = {
      'client secret': CLIENT_SECRET,
      'cookie secret': COOKIE_SECRET,
      'HMAC secret': hmac.sharedSecret,
      'authorization code': code,
      "provider's access token": fromProvider.access_token,
      "provider's id token": fromProvider.id_token,
      'access token cookie': jar.get('__Secure-a'),
      'session cookie': jar.get('session'),
      ...Object.fromEntries(Object.entries(flowCookies).map(([name, value]) => [`${name} cookie`, value])),
    }
    for (const [name, value] of Object.entries(secrets)) expect(typeof value === 'string' && value.length >= 16, `${name} was captured`).toBe(true)
    // the marker requests' lines come after every line of the sign-in: nothing can still be on its way
    const logs = { gateway: (await flushedLogs(gw, '/api/health')).join('\n'), iam: (await flushedLogs(iam)).join('\n') }
    expect(logs.gateway).toContain('/oauth/callback/demo')
    for (const [app, log] of Object.entries(logs)) {
      for (const [name, value] of Object.entries(secrets)) expect(log.includes(value as string), `${name} in the ${app} log`).toBe(false)
    }
  })
})
