/**
 * The OpenID Provider under test: SMTP + IAM + gateway wired as in production (the issuer is the
 * gateway's origin + /oidc), relying parties registered through the test build's client route
 * (the CLI cannot open the embedded database while the IAM holds it), and a cookie-keeping
 * "browser" that signs in through the BFF and walks the provider's redirects and the
 * /interaction/:uid steps as the page does.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import { expect } from 'vitest'
import { startIam, type IamServer } from './iam-server'
import { createIamClient } from '../../iam/client/iam-client'
import { hmac, PASSWORD, startE2eStack, type E2eStack } from '../e2e/auth-stack'

export interface OpStack extends E2eStack {
  issuer: string
  as: oauth.AuthorizationServer
  register(client: RegisteredClientInput): Promise<RegisteredClient>
}

export interface RegisteredClientInput {
  name: string
  redirectUris?: string[]
  postLogoutRedirectUris?: string[]
  public?: boolean
  authMethod?: 'client_secret_basic' | 'client_secret_post'
  firstParty?: boolean
  grants?: string[]
  scope?: string
  backchannelLogoutUri?: string
  /** a chosen client id (the IAM's config may name it); default a random one */
  clientId?: string
}

export interface RegisteredClient {
  client: oauth.Client
  auth: oauth.ClientAuth
  secret: string | null
  redirectUri: string
}

/** oauth4webapi refuses plain http unless told per call: these servers are on loopback. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const

export const API = 'https://api.example.test/'

/** Starts the stack; `iamConfig` adds IAM keys (they may need the gateway's port); its `oidc` keys join the stack's; `iamEnv` adds to the IAM's environment. */
export async function startOpStack(options: { iamConfig?: (port: number) => Record<string, unknown>; iamEnv?: Record<string, string> } = {}): Promise<OpStack> {
  const stack = await startE2eStack({
    // the test build's client route (routes/__test/oidc-clients)
    iamEnv: { IAM_TEST_ROUTES: '1', ...options.iamEnv },
    iamConfig: (port) => {
      const extra = options.iamConfig?.(port) ?? {}
      const oidc = { issuer: `http://127.0.0.1:${port}/oidc`, resourceServers: [{ indicator: API, scopes: ['orders:read', 'orders:write'] }] }
      return { ...extra, oidc: { ...oidc, ...(extra.oidc as Record<string, unknown> | undefined) } }
    },
  })
  const issuer = new URL(`${stack.url}/oidc`)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }))
  const admin = createIamClient({ baseUrl: stack.iam.url, hmac })
  return {
    ...stack,
    issuer: issuer.href,
    as,
    async register(input) {
      const redirectUri = input.redirectUris?.[0] ?? 'http://127.0.0.1:9/cb'
      const res = await admin.request<{ client: { clientId: string }; clientSecret: string | null }>({
        method: 'POST',
        path: '/__test/oidc-clients',
        body: { redirectUris: [redirectUri], ...input },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const { client, clientSecret } = res.body!
      return {
        client: { client_id: client.clientId },
        auth: !clientSecret ? oauth.None() : input.authMethod === 'client_secret_post' ? oauth.ClientSecretPost(clientSecret) : oauth.ClientSecretBasic(clientSecret),
        secret: clientSecret,
        redirectUri,
      }
    },
  }
}

/** A browser: one cookie jar for the gateway's origin, no redirect followed on its own. */
export class Browser {
  readonly cookies = new Map<string, string>()
  constructor(readonly base: string) {}

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      const gone = value === '' || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a))
      if (gone) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  async fetch(url: string, init: { method?: string; json?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url, this.base)
    const headers: Record<string, string> = { ...init.headers }
    if (target.origin === new URL(this.base).origin && this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    let body: string | undefined
    if (init.json !== undefined) {
      body = JSON.stringify(init.json)
      headers['content-type'] = 'application/json'
      headers['x-csrf'] = '1'
    } else if (init.form) {
      body = new URLSearchParams(init.form).toString()
      headers['content-type'] = 'application/x-www-form-urlencoded'
    }
    const res = await fetch(target, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' })
    if (target.origin === new URL(this.base).origin) this.keep(res)
    return res
  }

  /** POST to a BFF route as the pages do (X-CSRF header, JSON). */
  post(path: string, json: unknown = {}): Promise<Response> {
    return this.fetch(path, { method: 'POST', json })
  }
}

let counter = 0
export const newEmail = (tag = 'rp') => `${tag}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`

/** Signs a new account up through the BFF; the browser is then signed in. */
export async function signUp(browser: Browser, email = newEmail()): Promise<string> {
  const res = await browser.post('/api/auth/signup', { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Ada Lovelace', termsConsent: 'on' })
  expect(res.status, await res.clone().text()).toBeLessThan(300)
  return email
}

export interface AuthorizeOutcome {
  /** the redirect to the client (its redirect_uri with code or error), when it came */
  callback?: URL
  /** the consent step the walk stopped at (`consent: 'stop'`) */
  consentUid?: string
  /** a non-redirect answer that ended the walk */
  stopped?: Response
}

/**
 * Follows the browser's way from an authorization URL: the provider's redirects, the
 * /interaction/:uid page's steps (continue as the signed-in account; consent allowed unless told
 * otherwise; with `reauthenticate`, a fresh sign-in the step asks for is given with the password),
 * until the provider sends the browser to `redirectUri`.
 */
export async function walkAuthorization(
  browser: Browser,
  start: string,
  redirectUri: string,
  options: { consent?: 'allow' | 'deny' | 'stop'; reauthenticate?: boolean } = {},
): Promise<AuthorizeOutcome> {
  let url = start
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(redirectUri)) return { callback: new URL(url) }
    const interaction = /\/interaction\/([A-Za-z0-9_-]+)$/.exec(new URL(url, browser.base).pathname)
    if (interaction) {
      const uid = interaction[1]!
      const details = await browser.fetch(`/interaction/${uid}/details`)
      if (details.status !== 200) return { stopped: details }
      const view = ((await details.json()) as { data: { prompt: string } }).data
      let step: Response
      if (view.prompt === 'consent') {
        if (options.consent === 'stop') return { consentUid: uid }
        step = await browser.post(`/interaction/${uid}/${options.consent === 'deny' ? 'abort' : 'consent'}`)
      } else {
        step = await browser.post(`/interaction/${uid}/login`)
        // prompt=login or max_age asked for a fresh sign-in: the page has the person confirm the password
        if (step.status === 403 && options.reauthenticate && /reauthenticate/.test(await step.clone().text())) {
          const proof = await browser.post('/api/auth/reauthenticate', { password: PASSWORD })
          if (proof.status !== 200) return { stopped: proof }
          step = await browser.post(`/interaction/${uid}/login`)
        }
      }
      if (step.status !== 200) return { stopped: step }
      url = ((await step.json()) as { data: { redirectTo: string } }).data.redirectTo
      continue
    }
    const res = await browser.fetch(url)
    const location = res.headers.get('location')
    if (res.status < 300 || res.status >= 400 || !location) return { stopped: res }
    url = new URL(location, url.startsWith('http') ? url : browser.base).href
  }
  throw new Error('too many redirects')
}

/** An authorization request with PKCE (S256) and state; `extra` adds or replaces parameters. */
export async function authorizationUrl(op: OpStack, rp: RegisteredClient, extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const nonce = oauth.generateRandomNonce()
  const url = new URL(op.as.authorization_endpoint!)
  url.search = new URLSearchParams({
    client_id: rp.client.client_id,
    redirect_uri: rp.redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  }).toString()
  return { url: url.href, verifier, state, nonce }
}

/** The code of a callback, checked as an RP checks it (state, `iss` of RFC 9207). */
export function codeParams(op: OpStack, rp: RegisteredClient, callback: URL, state: string): URLSearchParams {
  return oauth.validateAuthResponse(op.as, rp.client, callback, state)
}

/** Code -> tokens, as the RP does it (ID token signature, nonce, iss, aud checked by oauth4webapi). */
export async function redeem(op: OpStack, rp: RegisteredClient, params: URLSearchParams, verifier: string, nonce?: string) {
  const response = await oauth.authorizationCodeGrantRequest(op.as, rp.client, rp.auth, params, rp.redirectUri, verifier, insecure)
  return oauth.processAuthorizationCodeResponse(op.as, rp.client, response, { expectedNonce: nonce, requireIdToken: true })
}

/** The fields a page's form would send: every input's name and value (the hidden xsrf among them). */
export function formFields(html: string, formId?: string): Record<string, string> {
  let scope = html
  if (formId) {
    const start = html.indexOf(`id="${formId}"`)
    expect(start, `form ${formId} on the page`).toBeGreaterThanOrEqual(0)
    scope = html.slice(start, html.indexOf('</form>', start))
  }
  const fields: Record<string, string> = {}
  for (const tag of scope.match(/<input\b[^>]*>/g) ?? []) {
    const attrs = attributes(tag)
    if (attrs.name) fields[attrs.name] = attrs.value ?? ''
  }
  return fields
}

/** A tag's attributes (name -> value; valueless attributes map to ''). */
export function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*"([^"]*)")?/g)) if (m[1] !== 'input') out[m[1]!] = m[2] ?? ''
  return out
}

/** A form's action attribute. */
export function formAction(html: string, formId: string): string {
  const tag = new RegExp(`<form\\b[^>]*id="${formId.replace('.', '\\.')}"[^>]*>`).exec(html)
  expect(tag, `form ${formId} on the page`).not.toBeNull()
  return attributes(tag![0]).action!
}

/** A full code flow in a signed-in browser: callback checked, code redeemed, the RP's view of the result. */
export async function codeFlow(op: OpStack, rp: RegisteredClient, browser: Browser, extra: Record<string, string> = {}) {
  const { url, verifier, state, nonce } = await authorizationUrl(op, rp, extra)
  const walk = await walkAuthorization(browser, url, rp.redirectUri)
  expect(walk.callback, `authorization ended at ${walk.stopped?.status} ${await walk.stopped?.clone().text()}`).toBeDefined()
  return redeem(op, rp, codeParams(op, rp, walk.callback!, state), verifier, nonce)
}

/** Token introspection as the client (RFC 7662). */
export async function introspect(op: OpStack, rp: RegisteredClient, token: string) {
  return oauth.processIntrospectionResponse(op.as, rp.client, await oauth.introspectionRequest(op.as, rp.client, rp.auth, token, insecure))
}

/** A refresh as the RP does it. */
export async function refresh(op: OpStack, rp: RegisteredClient, refreshToken: string) {
  return oauth.processRefreshTokenResponse(op.as, rp.client, await oauth.refreshTokenGrantRequest(op.as, rp.client, rp.auth, refreshToken, insecure))
}

/**
 * A second IAM on the stack's rows, its configuration the stack's IAM's changed by `change` (a fast
 * path switched off): on PostgreSQL the same database; on PGlite (one process's own) a copy of it
 * taken now (test-build/routes/__test/database-dump.get.ts), kept in the first IAM's data
 * directory as `<name>.tar`.
 */
export async function startSecondIam(op: OpStack, name: string, change: (config: { service: Record<string, unknown>; oidc: Record<string, unknown> }) => void): Promise<IamServer> {
  const config = JSON.parse(readFileSync(join(op.iam.dataDir, 'iam.json'), 'utf8')) as { service: Record<string, unknown>; oidc: Record<string, unknown> }
  delete config.service.dataDir
  change(config)
  if (process.env.DATABASE_URL) return startIam({ config, share: op.iam.share })
  const dump = await createIamClient({ baseUrl: op.iam.url, hmac }).forward({ method: 'GET', target: '/__test/database-dump', headers: {}, purpose: 'bff' })
  expect(dump.status).toBe(200)
  const template = join(op.iam.dataDir, `${name}.tar`)
  writeFileSync(template, dump.body)
  return startIam({ config, env: { IAM_TEST_PGLITE_TEMPLATE: template } })
}
