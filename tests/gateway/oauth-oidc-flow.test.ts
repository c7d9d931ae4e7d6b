/**
 * The OIDC authorization code flow end to end: the built gateway, a real oidc-provider on loopback
 * and a fake IAM (gateway.md: redirect handler, the full callback and the success page).
 */
import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FakeIam } from '../helpers/fake-iam'
import { cookieHeader, createBrowser, expectFlowCookiesCleared, runToCallback, setupOidcScenario, walkProvider, type Browser } from '../helpers/oidc-provider'

const scenario = await setupOidcScenario()
const { base } = scenario
let iam: FakeIam
let opIssuer: string

const setCookies = (res: Response) => res.headers.getSetCookie()

async function completeByRedirect(browser: Browser, provider: string) {
  const back = await runToCallback(browser, base, provider)
  if (back.kind !== 'redirect') throw new Error('expected a query response')
  return browser.request(back.url)
}

beforeAll(() => {
  iam = scenario.iam
  opIssuer = scenario.op.issuer
})

describe('GET /oauth/:provider', () => {
  it('answers 404 for an unknown provider on both routes', async () => {
    for (const path of ['/oauth/nope', '/oauth/callback/nope?code=x&state=y']) {
      const res = await fetch(`${base}${path}`, { redirect: 'manual' })
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ error: 'unknown_provider' })
    }
  })

  it('redirects with state, PKCE S256, nonce, scopes and extraAuthParams, and sets signed short-lived flow cookies', async () => {
    const res = await fetch(`${base}/oauth/demo`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    const location = new URL(res.headers.get('location') ?? '')
    expect(location.origin + location.pathname).toBe(`${opIssuer}/auth`)
    const q = location.searchParams
    expect(q.get('client_id')).toBe('gw-basic')
    expect(q.get('redirect_uri')).toBe(`${base}/oauth/callback/demo`)
    expect(q.get('response_type')).toBe('code')
    expect(q.get('scope')).toBe('openid email profile')
    expect(q.get('prompt')).toBe('consent')
    expect(q.get('code_challenge_method')).toBe('S256')
    for (const name of ['statedemo', 'pkce_vdemo', 'noncedemo']) {
      expect(cookieHeader(res, name)).toMatch(new RegExp(`^${name}=[^;]+; Max-Age=180; Path=/; HttpOnly; Secure; SameSite=Lax$`))
    }
    const value = (name: string) => cookieHeader(res, name)!.split(';')[0]!.slice(name.length + 1)
    const [state, expiresAtMs, device, mac] = value('statedemo').split('.')
    expect(q.get('state')).toBe(state)
    // the browser's canary_id (from the IAM's /check) is bound into the signed value
    expect(device).toBe(value('canary_id'))
    expect(Number(expiresAtMs)).toBeGreaterThan(Date.now())
    expect(mac).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(q.get('nonce')).toBe(value('noncedemo'))
    expect(q.get('code_challenge')).toBe(createHash('sha256').update(value('pkce_vdemo')).digest('base64url'))
  })

  it('gets a canary_id from the IAM /check for a browser without one and forwards it', async () => {
    const before = iam.requests.length
    const res = await fetch(`${base}/oauth/demo`, { redirect: 'manual', headers: { 'user-agent': 'ua-test/1' } })
    expect(cookieHeader(res, 'canary_id')).toMatch(/^canary_id=[0-9a-f]{64}; /)
    const check = iam.requests.slice(before).find((r) => r.path === '/check')
    expect(check?.hmacValid).toBe(true)
    expect(check?.headers['user-agent']).toBe('ua-test/1')
    const again = await fetch(`${base}/oauth/demo`, { redirect: 'manual', headers: { cookie: 'canary_id=abc123' } })
    expect(cookieHeader(again, 'canary_id')).toBeUndefined()
  })

  it('asks the IAM for one canary only when the page-cookie middleware already fetched it (document request)', async () => {
    const before = iam.requests.length
    const res = await fetch(`${base}/oauth/demo`, { redirect: 'manual', headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    expect(res.status).toBe(302)
    expect(iam.requests.slice(before).filter((r) => r.path === '/check')).toHaveLength(1)
    expect(setCookies(res).filter((c) => c.startsWith('canary_id='))).toHaveLength(1)
  })

  it('uses SameSite=None flow cookies when the provider answers with form_post', async () => {
    const res = await fetch(`${base}/oauth/demoform`, { redirect: 'manual' })
    expect(new URL(res.headers.get('location') ?? '').searchParams.get('response_mode')).toBe('form_post')
    expect(cookieHeader(res, 'statedemoform')).toMatch(/; SameSite=None$/)
    expect(cookieHeader(res, 'pkce_vdemoform')).toBeUndefined()
  })
})

describe('the full code flow', () => {
  for (const provider of ['demo', 'demopost']) {
    it(`logs in through ${provider === 'demo' ? 'client_secret_basic' : 'client_secret_post'} with PKCE and hands the user to the IAM`, async () => {
      const browser = createBrowser()
      iam.users.clear()
      const before = iam.requests.length
      const res = await completeByRedirect(browser, provider)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expectFlowCookiesCleared(res, provider)
      expect(cookieHeader(res, '__Secure-a')).toMatch(/^__Secure-a=iam-at-[0-9a-f]+; Max-Age=900; Path=\/; HttpOnly; Secure; SameSite=Strict$/)
      expect(cookieHeader(res, 'a-iat')).toMatch(/^a-iat=\d+; Max-Age=900; Path=\/; HttpOnly; Secure; SameSite=Strict$/)
      expect(cookieHeader(res, 'session')).toMatch(/^session=[\w-]+; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Strict$/)
      const jar = browser.cookies(base)
      expect([...jar.keys()].sort()).toEqual(['__Secure-a', 'a-iat', 'canary_id', 'session'])

      const user = iam.users.get('alice@example.com')
      expect(user).toMatchObject({ sub: 'alice', email: 'alice@example.com', email_verified: true, name: 'alice', provider })
      expect(user).not.toHaveProperty('nonce')
      expect(user).not.toHaveProperty('at_hash')
      const login = iam.requests.slice(before).find((r) => r.path === `/auth/OAuth/${provider}`)!
      expect(login.hmacValid).toBe(true)
      expect(login.cookies).toEqual({ canary_id: jar.get('canary_id') })
      expect(login.headers['x-forwarded-for']).toBe('127.0.0.1')
    })
  }

  it('accepts the authorization response as a form post (response_mode=form_post) for the device that started it', async () => {
    const browser = createBrowser()
    const back = await runToCallback(browser, base, 'demoform')
    expect(back.kind).toBe('form_post')
    if (back.kind !== 'form_post') return
    // a cross-site POST does not carry the IAM's SameSite=Lax canary_id cookie
    const canary = browser.cookies(base).get('canary_id')
    browser.cookies(base).delete('canary_id')
    const before = iam.requests.length
    const res = await browser.request(back.action, { method: 'POST', body: back.params })
    expect(res.status).toBe(200)
    const during = iam.requests.slice(before)
    expect(during.map((r) => r.path)).toEqual(['/auth/OAuth/demoform'])
    expect(during[0]?.cookies).toEqual({ canary_id: canary })
    expectFlowCookiesCleared(res, 'demoform')
    expect(cookieHeader(res, 'statedemoform')).toMatch(/SameSite=None$/)
    expect(browser.cookies(base).has('__Secure-a')).toBe(true)
  })
})

describe('the success page', () => {
  it('escapes every embedded value and sends the browser only to redirectUrlOnSuccess', async () => {
    const browser = createBrowser()
    const start = await browser.request(`${base}/oauth/demoform?redirect=https://evil.test&redirect_uri=https://evil.test`)
    const back = await walkProvider(browser, start.headers.get('location') ?? '', `${base}/oauth/callback/demoform`, 'bob')
    if (back.kind !== 'form_post') throw new Error('expected form_post')
    back.params.set('redirect_uri', 'https://evil.test/')
    back.params.set('returnTo', 'https://evil.test/')
    const res = await browser.request(`${back.action}?next=https://evil.test`, { method: 'POST', body: back.params })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).not.toContain('evil.test')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<script>alert')
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#34;&#39;&#38;')
    const target = `${base}/welcome?next=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&a=1`
    expect(html).toContain(`<meta http-equiv="refresh" content="0;url=${target.replace(/&/g, '&#38;')}">`)
    expect(html).toContain(`window.location.replace(${JSON.stringify(target).replace(/&/g, '\\u0026')})`)
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/)
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? ''
    expect(csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`)
  })
})
