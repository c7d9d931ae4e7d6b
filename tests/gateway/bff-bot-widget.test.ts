/**
 * The pages' side of the IAM's Turnstile-style provider (gateway config `botChallenge.turnstileOrigin`,
 * server/plugins/csp-hashes.ts, server/api/auth/bot-challenge.get.ts): the page CSP opens to the
 * widget's origin for its script and frame (on every page: the app navigates from one to the other
 * under the CSP of the first), no page carries the script until a form asks for it, and the BFF names
 * the script next to the IAM's site key. The widget itself is the provider's: not run here.
 */
// store-independent: its subject is the page CSP and the widget origin the gateway names; no answer it checks comes from a store
import { describe, expect, it } from 'vitest'
import { browserLike, setupStack } from './bff-harness'

const ORIGIN = 'https://challenges.cloudflare.com'
const stack = await setupStack(
  { botChallenge: { enabled: true, provider: 'turnstile', turnstile: { siteKey: 'site-key-for-tests', secretKey: 'secret-key-for-tests' } } },
  { botChallenge: { turnstileOrigin: ORIGIN } },
)
const PAGE = { accept: 'text/html', 'sec-fetch-dest': 'document' }

const cspOf = async (path: string) => {
  const res = await browserLike(stack.gateway.url).call(path, { headers: PAGE })
  expect(res.status).toBe(200)
  return Object.fromEntries((res.headers.get('content-security-policy') ?? '').split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]))
}

describe('the Turnstile-style widget on the pages', () => {
  it('opens script-src and frame-src to the widget origin, and to no other third party', async () => {
    for (const path of ['/', '/signup', '/login', '/forgot-password']) {
      const csp = await cspOf(path)
      expect([path, csp['script-src']!.filter((source) => !source.startsWith("'"))]).toEqual([path, [ORIGIN]])
      expect([path, csp['frame-src']]).toEqual([path, [ORIGIN]])
    }
    // the widget's slot is on the page; its script is not (the page loads it once the BFF names it)
    const signup = await browserLike(stack.gateway.url).call('/signup', { headers: PAGE })
    expect(signup.text).toContain('id="bot-check-widget"')
    expect(signup.text).not.toContain(`${ORIGIN}/turnstile`)
    expect((await cspOf('/'))['default-src']).toEqual(["'self'"])
  })

  it('answers the site key and the script of the widget, never the secret key', async () => {
    const res = await browserLike(stack.gateway.url).call('/api/auth/bot-challenge')
    expect(res.status).toBe(200)
    expect(res.json.data).toEqual({ enabled: true, provider: 'turnstile', siteKey: 'site-key-for-tests', scriptUrl: `${ORIGIN}/turnstile/v0/api.js?render=explicit` })
    expect(res.text).not.toContain('secret-key-for-tests')
  })
})
