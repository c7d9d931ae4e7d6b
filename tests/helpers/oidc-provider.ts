/**
 * A real OpenID provider for the gateway tests: oidc-provider 9 (the same setup as
 * scripts/demo-oidc-provider.mjs) on a loopback port, plus a tiny cookie-keeping "browser" that
 * walks its devInteractions login and consent (POST /interaction/:uid `prompt=login&login=<id>`,
 * then `prompt=consent`) and stops where the provider sends the browser back to the gateway.
 */
import type { Server } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect } from 'vitest'
import { ROOT } from './build'
import { freePort, startFakeIam, type FakeIam } from './fake-iam'
import { setupGateway } from './nuxt-gateway'

export interface OidcClient {
  client_id: string
  client_secret: string
  redirect_uris: string[]
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post'
}

export interface OidcProvider {
  issuer: string
  /** every token response it sent (access_token, id_token, ...), for tests that look for them elsewhere */
  issued: Array<Record<string, unknown>>
  stop(): Promise<void>
}

interface DemoModule {
  createOidcProvider(opts: { issuer: string; clients: Array<Record<string, unknown>> }): {
    listen(port: number, host: string): Server
    on(event: 'grant.success', listener: (ctx: { body?: unknown }) => void): void
  }
}

/** Starts oidc-provider on `port` (0 = any) with the given clients. */
export async function startOidcProvider(clients: OidcClient[], port = 0): Promise<OidcProvider> {
  const demo = (await import(pathToFileURL(join(ROOT, 'scripts', 'demo-oidc-provider.mjs')).href)) as DemoModule
  // the issuer must be known before listening: take a free port first when none is given
  const chosen = port || (await freePort())
  const issuer = `http://127.0.0.1:${chosen}`
  const provider = demo.createOidcProvider({
    issuer,
    clients: clients.map((c) => ({ ...c, response_types: ['code'], grant_types: ['authorization_code'] })),
  })
  const issued: OidcProvider['issued'] = []
  provider.on('grant.success', (ctx) => issued.push({ ...(ctx.body as Record<string, unknown>) }))
  const server = provider.listen(chosen, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve())
    server.once('error', reject)
  })
  return { issuer, issued, stop: () => new Promise((resolve) => server.close(() => resolve())) }
}

/** A cookie jar per host:port that never follows redirects on its own. */
export interface Browser {
  jar: Map<string, Map<string, string>>
  request(url: string, init?: { method?: string; body?: URLSearchParams; headers?: Record<string, string> }): Promise<Response>
  cookies(url: string): Map<string, string>
}

/** A new browser with empty cookie jars. */
export function createBrowser(): Browser {
  const jar = new Map<string, Map<string, string>>()
  const cookies = (url: string) => {
    const host = new URL(url).host
    let j = jar.get(host)
    if (!j) jar.set(host, (j = new Map()))
    return j
  }
  return {
    jar,
    cookies,
    async request(url, init = {}) {
      const j = cookies(url)
      const headers: Record<string, string> = { ...init.headers }
      if (j.size) headers.cookie = [...j].map(([k, v]) => `${k}=${v}`).join('; ')
      if (init.body) headers['content-type'] = 'application/x-www-form-urlencoded'
      const res = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, redirect: 'manual' })
      for (const raw of res.headers.getSetCookie()) {
        const [pair = '', ...attrs] = raw.split(';')
        const eq = pair.indexOf('=')
        const name = pair.slice(0, eq).trim()
        const value = pair.slice(eq + 1).trim()
        const expired = attrs.some((a) => /^\s*max-age=(0|-\d+)\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a))
        if (expired || value === '') j.delete(name)
        else j.set(name, value)
      }
      return res
    },
  }
}

/** Where the provider hands the browser back to the gateway. */
export type ProviderReturn = { kind: 'redirect'; url: string } | { kind: 'form_post'; action: string; params: URLSearchParams }

function formPostOf(html: string): { action: string; params: URLSearchParams } | undefined {
  const action = /<form[^>]*action="([^"]+)"/i.exec(html)?.[1]
  if (!action) return undefined
  const params = new URLSearchParams()
  for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi)) params.set(m[1] ?? '', m[2] ?? '')
  return { action: action.replace(/&amp;/g, '&'), params }
}

/**
 * From the provider's authorization URL, logs in as `login` and consents (or aborts, which makes
 * the provider answer error=access_denied), until the provider sends the browser to `callbackPrefix`.
 */
export async function walkProvider(browser: Browser, authorizationUrl: string, callbackPrefix: string, login: string, opts: { abort?: boolean } = {}): Promise<ProviderReturn> {
  let url = authorizationUrl
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(callbackPrefix)) return { kind: 'redirect', url }
    const res = await browser.request(url)
    const location = res.headers.get('location')
    if (location) {
      url = new URL(location, url).href
      continue
    }
    const html = await res.text()
    const form = formPostOf(html)
    if (form && form.action.startsWith(callbackPrefix)) return { kind: 'form_post', ...form }
    const uid = /\/interaction\/([^/?#]+)/.exec(url)?.[1]
    if (!uid) throw new Error(`unexpected provider page ${url} (${res.status}): ${html.slice(0, 300)}`)
    const origin = new URL(url).origin
    if (opts.abort) {
      url = `${origin}/interaction/${uid}/abort`
      continue
    }
    const body = html.includes('name="login"')
      ? new URLSearchParams({ prompt: 'login', login, password: 'any' })
      : new URLSearchParams({ prompt: 'consent' })
    const submitted = await browser.request(`${origin}/interaction/${uid}`, { method: 'POST', body })
    const next = submitted.headers.get('location')
    if (!next) throw new Error(`interaction submit answered ${submitted.status}: ${(await submitted.text()).slice(0, 300)}`)
    url = new URL(next, url).href
  }
  throw new Error('too many redirects at the provider')
}

/** The Set-Cookie header for `name` in a response. */
export const cookieHeader = (res: Response, name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))

/** Asserts the response expires state{p}, pkce_v{p} and nonce{p} (gateway.md: whatever the outcome). */
export function expectFlowCookiesCleared(res: Response, provider: string): void {
  for (const name of [`state${provider}`, `pkce_v${provider}`, `nonce${provider}`]) {
    expect(cookieHeader(res, name), name).toMatch(new RegExp(`^${name}=; Max-Age=0;`))
  }
}

/** Asserts a 302 to `${base}/auth/error` and returns its `error` code. */
export function errorRedirectCode(res: Response, base: string): string | null {
  expect(res.status).toBe(302)
  const location = new URL(res.headers.get('location') ?? '')
  expect(location.origin + location.pathname).toBe(`${base}/auth/error`)
  return location.searchParams.get('error')
}

export const SCENARIO_COOKIE_SECRET = 'test-cookie-secret-0123456789-abcdefghijklmnop'
export const HOSTILE_LABEL = '<img src=x onerror=alert(1)>"\'&'

/**
 * The OIDC scenario of the flow tests, for the whole file (call at its top level): a fake IAM,
 * oidc-provider with three clients and the gateway (through @nuxt/test-utils) with `demo`
 * (client_secret_basic, PKCE, prompt=consent), `demopost` (client_secret_post, PKCE) and `demoform`
 * (form_post, no PKCE, a hostile displayName and success URL). `iam` and `op` are set once the
 * file's hooks have run.
 */
export async function setupOidcScenario(): Promise<{ readonly iam: FakeIam; readonly op: OidcProvider; base: string }> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const client = (id: string, provider: string, method: OidcClient['token_endpoint_auth_method']): OidcClient => ({
    client_id: id,
    client_secret: `${id}-secret-0123456789`,
    redirect_uris: [`${base}/oauth/callback/${provider}`],
    token_endpoint_auth_method: method,
  })
  const basic = client('gw-basic', 'demo', 'client_secret_basic')
  const post = client('gw-post', 'demopost', 'client_secret_post')
  const form = client('gw-form', 'demoform', 'client_secret_basic')
  let iam: FakeIam | undefined
  let op: OidcProvider | undefined
  beforeAll(async () => {
    iam = await startFakeIam()
    op = await startOidcProvider([basic, post, form])
  })
  afterAll(async () => {
    await op?.stop()
    await iam?.stop()
  })
  const entry = (name: string, c: OidcClient, extra: Record<string, unknown> = {}) => ({
    kind: 'oidc',
    name,
    issuer: op!.issuer,
    clientId: c.client_id,
    clientSecret: c.client_secret,
    redirectUri: c.redirect_uris[0],
    defaultScopes: ['openid', 'email', 'profile'],
    supportPKCE: true,
    redirectUrlOnSuccess: `${base}/account`,
    redirectUrlOnError: `${base}/auth/error`,
    tokenAuthMethod: c.token_endpoint_auth_method,
    ...extra,
  })
  await setupGateway({
    port,
    config: () => ({
      iam: { url: iam!.url, hmac: iam!.hmac },
      cookieSecret: SCENARIO_COOKIE_SECRET,
      OAuthProviders: [
        entry('demo', basic, { extraAuthParams: { prompt: 'consent' } }),
        entry('demopost', post),
        entry('demoform', form, {
          supportPKCE: false,
          extraAuthParams: { response_mode: 'form_post' },
          displayName: HOSTILE_LABEL,
          redirectUrlOnSuccess: `${base}/welcome?next=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&a=1`,
        }),
      ],
    }),
  })
  return {
    get iam() {
      return iam!
    },
    get op() {
      return op!
    },
    base,
  }
}

/** Starts a flow at the gateway and walks the provider's login as `login`; returns where it sends the browser back. */
export async function runToCallback(browser: Browser, base: string, provider: string, opts: { abort?: boolean; login?: string } = {}): Promise<ProviderReturn> {
  const start = await browser.request(`${base}/oauth/${provider}`)
  expect(start.status).toBe(302)
  return walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/${provider}`, opts.login ?? 'alice', opts)
}
