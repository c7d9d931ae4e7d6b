/**
 * The BFF's browser-facing defences: CSRF refusal, security headers, allow-listed IAM calls, and
 * same-origin-only return targets. Runs the built gateway against the built IAM (HMAC on).
 */
// store-independent: its subject is CSRF, security headers and return targets, decided by the gateway before or apart from any IAM store
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { safeReturnTo } from '../../composables/safe-return-to'
import { isAllowedIamCall } from '../../server/utils/bff/allow-list'
import { browserLike, setupStackOnSharedIam } from './bff-harness'

const acme = {
  kind: 'oauth',
  name: 'acme',
  displayName: 'Acme ID',
  // never contacted by these tests: only the sign-in buttons are checked
  authorizationEndpoint: 'http://127.0.0.1:9/authorize',
  tokenEndpoint: 'http://127.0.0.1:9/token',
  userInfoEndpoint: 'http://127.0.0.1:9/userinfo',
  clientId: 'client',
  clientSecret: 'secret',
  redirectUri: 'http://127.0.0.1:3000/oauth/callback/acme',
  redirectUrlOnSuccess: 'http://127.0.0.1:3000/account',
  redirectUrlOnError: 'http://127.0.0.1:3000/auth/error',
}

// the gateway project's shared IAM: the IAM needs no config of its own here
const stack = await setupStackOnSharedIam({ OAuthProviders: [acme] })

const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

describe('CSRF on unsafe BFF routes', () => {
  it('refuses a same-origin POST without the X-CSRF header with 403 JSON', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/auth/login', { method: 'POST', body: { email: 'a@example.com', password: 'x' }, headers: { 'x-csrf': '' } })
    expect(res.status).toBe(403)
    expect(res.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
  })

  it('refuses a request carrying X-CSRF from another origin', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/tokens', { method: 'POST', body: { name: 'x', privilege: 'demo' }, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
    expect(res.status).toBe(403)
    expect(res.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
  })

  it('refuses a cross-site HTML form post even with a copied double-submit token', async () => {
    const b = browserLike(stack.gateway.url)
    b.jar.set('__Host-csrf', 'A'.repeat(43))
    const res = await b.call('/api/auth/login', {
      method: 'POST',
      body: formBody({ email: 'a@example.com', password: 'x', _csrf: 'A'.repeat(43) }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'x-csrf': '' },
    })
    expect(res.status).toBe(403)
    expect(res.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
  })

  it('refuses a same-origin form post whose _csrf does not match the cookie', async () => {
    const b = browserLike(stack.gateway.url)
    b.jar.set('__Host-csrf', 'A'.repeat(43))
    const res = await b.call('/api/auth/logout', {
      method: 'POST',
      body: formBody({ _csrf: 'B'.repeat(43) }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' },
    })
    expect(res.status).toBe(403)
  })

  it('accepts a same-origin no-JS form post with the token from the page', async () => {
    const b = browserLike(stack.gateway.url)
    const page = await b.call('/login', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    expect(page.status).toBe(200)
    const token = b.jar.get('__Host-csrf')
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(page.text).toContain(`value="${token}"`)
    const res = await b.call('/api/auth/logout', {
      method: 'POST',
      body: formBody({ _csrf: token ?? '' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' },
    })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/login?signedOut=1')
  })

  it('accepts a no-JS form post with Origin: null when its token matches (a page under no-referrer)', async () => {
    const b = browserLike(stack.gateway.url)
    await b.call('/login', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    const res = await b.call('/api/auth/logout', {
      method: 'POST',
      body: formBody({ _csrf: b.jar.get('__Host-csrf') ?? '' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'x-csrf': '', accept: 'text/html', 'sec-fetch-dest': 'document' },
    })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/login?signedOut=1')
  })

  it('refuses Origin: null without a matching token, and with the X-CSRF header instead of one', async () => {
    const b = browserLike(stack.gateway.url)
    b.jar.set('__Host-csrf', 'A'.repeat(43))
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'x-csrf': '' }
    expect((await b.call('/api/auth/logout', { method: 'POST', body: formBody({ _csrf: 'B'.repeat(43) }), headers: form })).status).toBe(403)
    expect((await b.call('/api/auth/logout', { method: 'POST', body: formBody({}), headers: form })).status).toBe(403)
    // an opaque origin (sandboxed frame, data: page) that sends the header is not this site's script
    const scripted = await b.call('/api/auth/logout', { method: 'POST', body: {}, headers: { origin: 'null' } })
    expect(scripted.status).toBe(403)
    expect(scripted.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
  })

  it('refuses a cross-site form post with Origin: null even when the token matches', async () => {
    const b = browserLike(stack.gateway.url)
    b.jar.set('__Host-csrf', 'A'.repeat(43))
    const res = await b.call('/api/auth/logout', {
      method: 'POST',
      body: formBody({ _csrf: 'A'.repeat(43) }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'sec-fetch-site': 'cross-site', 'x-csrf': '' },
    })
    expect(res.status).toBe(403)
  })

  it('answers a refused form post from a browser with a page that leads back to the form, scripts with JSON', async () => {
    const b = browserLike(stack.gateway.url)
    const navigation = { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '', accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'sec-fetch-dest': 'document' }
    const page = await b.call('/api/auth/reset-password?token=t&random=r&reason=PASSWORD_RESET&visitor=v&x=%22%3E', { method: 'POST', body: formBody({ _csrf: 'nope' }), headers: navigation })
    expect(page.status).toBe(403)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.text).toContain('<h1>The form could not be sent</h1>')
    // the link page keeps its link parameters (and nothing else) so the person can send the form again
    expect(page.text).toContain('href="/reset-password?token=t&#38;random=r&#38;reason=PASSWORD_RESET&#38;visitor=v"')
    const script = await b.call('/api/auth/login', { method: 'POST', body: formBody({ _csrf: 'nope' }), headers: { ...navigation, accept: 'application/json' } })
    expect(script.status).toBe(403)
    expect(script.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
  })

  it('leaves safe methods alone', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/auth/session', { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ authenticated: false })
  })
})

/** Every BFF route file under server/api that takes an unsafe method, as `METHOD /path` with its parameters filled. */
function unsafeBffRoutes(): Array<{ method: string; path: string }> {
  const root = join(import.meta.dirname, '../../server/api')
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
  return files(root).flatMap((absolute) => {
    const file = relative(root, absolute).split(sep).join('/')
    const [, name, method] = /^(.*?)(?:\.(get|post|put|patch|delete|head))?\.ts$/.exec(file)!
    if (method === 'get' || method === 'head') return []
    const path = `/api/${name!.replace(/\[\.\.\.\w+\]/g, 'x/y').replace(/\[\w+\]/g, 'x').replace(/(^|\/)index$/, '')}`
    return [{ method: (method ?? 'post').toUpperCase(), path }]
  })
}

describe('CSRF on every unsafe BFF route', () => {
  // machine clients verify API tokens here with their key; no browser and no cookie are involved
  const MACHINE = /^\/api\/public\//
  const routes = unsafeBffRoutes().filter((r) => !MACHINE.test(r.path))

  it('finds the route files (the walk itself works)', () => {
    expect(routes.length).toBeGreaterThan(40)
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/api/auth/login', '/api/orgs/active', '/api/admin/users/x/ban']))
  })

  it.each(routes)('refuses $method $path from this origin without the X-CSRF header or a form token', async ({ method, path }) => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call(path, { method, body: {}, headers: { 'x-csrf': '' } })
    expect(res.status).toBe(403)
    expect(res.json).toEqual({ ok: false, error: 'Cross-site request refused', code: 'csrf_refused' })
  })
})

describe('sign-in page', () => {
  it('lists each configured OAuth provider by name and label, nothing secret', async () => {
    const res = await browserLike(stack.gateway.url).call('/api/auth/providers')
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ providers: [{ name: 'acme', displayName: 'Acme ID', href: '/oauth/acme' }] })
  })

  it('renders a button per provider that starts the flow at /oauth/:name, and gives the browser its device cookie', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/login', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    expect(res.text).toContain('href="/oauth/acme"')
    expect(res.text).toContain('Continue with Acme ID')
    expect(b.jar.get('canary_id')).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe('security headers', () => {
  it('sends CSP, nosniff, a same-origin-only referrer and no-store on API answers', async () => {
    const res = await browserLike(stack.gateway.url).call('/api/auth/session')
    const csp = res.headers.get('content-security-policy') ?? ''
    for (const directive of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'", "script-src 'self'"]) expect(csp).toContain(directive)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // never `no-referrer`: under it browsers send `Origin: null` on the site's own form posts
    expect(res.headers.get('referrer-policy')).toBe('same-origin')
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  it('allows the page inline scripts and styles only by their SHA-256 hash', async () => {
    const res = await browserLike(stack.gateway.url).call('/login', { headers: { accept: 'text/html' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).not.toContain('unsafe-inline')
    const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? ''
    const inline = [...res.text.matchAll(/<script\b(?![^>]+\bsrc\s*=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]).filter(Boolean)
    expect(inline.length).toBeGreaterThan(0)
    for (const body of inline) expect(scriptSrc).toContain(`'sha256-${createHash('sha256').update(body!, 'utf8').digest('base64')}'`)
  })
})

describe('allow-listed IAM calls', () => {
  it('permits exactly the browser actions and nothing else', () => {
    expect(isAllowedIamCall('POST', '/login')).toBe(true)
    expect(isAllowedIamCall('GET', '/secret/accesstoken/metadata')).toBe(true)
    expect(isAllowedIamCall('POST', '/custom/mfa/change_email')).toBe(true)
    expect(isAllowedIamCall('POST', '/api/manage/rotate')).toBe(true)
    expect(isAllowedIamCall('GET', '/login')).toBe(false)
    expect(isAllowedIamCall('GET', '/operational/config')).toBe(false)
    expect(isAllowedIamCall('POST', '/auth/OAuth/demo')).toBe(false)
    expect(isAllowedIamCall('POST', '/custom/mfa/../../operational/config')).toBe(false)
    expect(isAllowedIamCall('POST', '/api/manage/list-metadata')).toBe(false)
    expect(isAllowedIamCall('POST', '/auth/totp/enable')).toBe(true)
    expect(isAllowedIamCall('POST', '/auth/second-factor')).toBe(true)
    expect(isAllowedIamCall('POST', '/auth/totp/other')).toBe(false)
    expect(isAllowedIamCall('POST', '/auth/passkeys/login/verify')).toBe(true)
    expect(isAllowedIamCall('POST', '/auth/passkeys/other')).toBe(false)
    expect(isAllowedIamCall('POST', '/auth/passkey-signup/finish')).toBe(true)
    expect(isAllowedIamCall('GET', '/auth/passkey-signup/finish')).toBe(false)
  })

  it('refuses a custom-MFA reason outside [A-Z0-9_]{3,64} before calling the IAM', async () => {
    const b = browserLike(stack.gateway.url)
    b.jar.set('session', 'x')
    const res = await b.call('/api/auth/custom-mfa/..%2F..%2Foperational%2Fconfig', { method: 'POST', body: {} })
    expect([400, 404]).toContain(res.status)
    expect(res.text).not.toContain('accessTokenTTL')
  })
})

describe('return-to targets', () => {
  it('keeps same-origin paths and refuses every other form', () => {
    expect(safeReturnTo('/tokens')).toBe('/tokens')
    expect(safeReturnTo('/auth/confirm?token=a&reason=b')).toBe('/auth/confirm?token=a&reason=b')
    for (const evil of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/\t/evil.example', '', 'tokens', '\\\\evil.example']) {
      expect(safeReturnTo(evil)).toBe('/account')
    }
  })

  it('a no-JS sign-in never redirects off-site, whatever returnTo says', async () => {
    const b = browserLike(stack.gateway.url)
    await b.call('/login', { headers: { accept: 'text/html', 'sec-fetch-dest': 'document' } })
    const res = await b.call('/api/auth/login', {
      method: 'POST',
      body: formBody({ email: 'nobody@example.com', password: 'wrong password 123', returnTo: '//evil.example/x', _csrf: b.jar.get('__Host-csrf') ?? '' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' },
    })
    expect(res.status).toBe(303)
    const location = res.headers.get('location') ?? ''
    expect(location.startsWith('/')).toBe(true)
    expect(location.startsWith('//')).toBe(false)
    expect(location).not.toContain('evil.example')
  })
})
