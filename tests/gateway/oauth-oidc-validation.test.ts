/**
 * The callback's validation step against a real oidc-provider (gateway.md, Validation step and
 * Errors): provider error, missing code, state, iss, code replay, and the IAM's refusals. The flow
 * cookies are cleared in every case.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { signState } from '../../server/utils/oauth/state-cookie'
import type { FakeIam } from '../helpers/fake-iam'
import {
  cookieHeader,
  createBrowser,
  errorRedirectCode,
  expectFlowCookiesCleared,
  runToCallback,
  SCENARIO_COOKIE_SECRET as COOKIE_SECRET,
  setupOidcScenario,
  type Browser,
} from '../helpers/oidc-provider'

const scenario = await setupOidcScenario()
const { base } = scenario
let iam: FakeIam

const errorRedirect = (res: Response) => errorRedirectCode(res, base)

async function completeByRedirect(browser: Browser, provider: string) {
  const back = await runToCallback(browser, base, provider)
  if (back.kind !== 'redirect') throw new Error('expected a query response')
  return browser.request(back.url)
}

beforeAll(() => {
  iam = scenario.iam
})

describe('callback validation', () => {
  it('clears the cookies and redirects with the provider error when the user refuses', async () => {
    const browser = createBrowser()
    const back = await runToCallback(browser, base, 'demo', { abort: true })
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    expect(new URL(back.url).searchParams.get('error')).toBe('access_denied')
    const res = await browser.request(back.url)
    expect(errorRedirect(res)).toBe('access_denied')
    expectFlowCookiesCleared(res, 'demo')
  })

  it('answers 405 to a POST callback for a provider that is not configured for form_post', async () => {
    const res = await fetch(`${base}/oauth/callback/demo`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ code: 'x', state: 'y' }) })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET')
    expect(await res.json()).toEqual({ error: 'method_not_allowed' })
    expectFlowCookiesCleared(res, 'demo')
  })

  it('maps an unknown provider error code to access_denied', async () => {
    const res = await fetch(`${base}/oauth/callback/demo?error=%3Cscript%3E&state=x`, { redirect: 'manual' })
    expect(errorRedirect(res)).toBe('access_denied')
    expectFlowCookiesCleared(res, 'demo')
  })

  it('redirects with missing_code when the callback has no code', async () => {
    const browser = createBrowser()
    const back = await runToCallback(browser, base, 'demo')
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    const url = new URL(back.url)
    url.searchParams.delete('code')
    const res = await browser.request(url.href)
    expect(errorRedirect(res)).toBe('missing_code')
    expectFlowCookiesCleared(res, 'demo')
  })

  it('answers 400 for a missing, tampered, stale, foreign or mismatched state', async () => {
    const cases: Array<(browser: Browser, url: URL) => void> = [
      (b) => b.cookies(base).delete('statedemo'),
      (b) => b.cookies(base).set('statedemo', `${b.cookies(base).get('statedemo')!.slice(0, -2)}AA`),
      (b, url) => b.cookies(base).set('statedemo', signState(COOKIE_SECRET, 'demo', url.searchParams.get('state')!, Date.now() - 1)),
      // a state signed for another provider (keyword auth-oauth.demopost) is refused by demo
      (b, url) => b.cookies(base).set('statedemo', signState(COOKIE_SECRET, 'demopost', url.searchParams.get('state')!, Date.now() + 60_000)),
      (_b, url) => url.searchParams.set('state', 'x'.repeat(43)),
    ]
    for (const tamper of cases) {
      const browser = createBrowser()
      const back = await runToCallback(browser, base, 'demo')
      if (back.kind !== 'redirect') throw new Error('expected redirect')
      const url = new URL(back.url)
      tamper(browser, url)
      const res = await browser.request(url.href)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ error: 'invalid_state' })
      expectFlowCookiesCleared(res, 'demo')
    }
  })

  it('answers 400 when the iss parameter is missing or names another issuer (RFC 9207)', async () => {
    for (const iss of ['http://127.0.0.1:1/other', null]) {
      const browser = createBrowser()
      const back = await runToCallback(browser, base, 'demo')
      if (back.kind !== 'redirect') throw new Error('expected redirect')
      const url = new URL(back.url)
      if (iss) url.searchParams.set('iss', iss)
      else url.searchParams.delete('iss')
      const res = await browser.request(url.href)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ error: 'iss_mismatch' })
      expectFlowCookiesCleared(res, 'demo')
    }
  })

  it('redirects with token_exchange_failed when the code was already used', async () => {
    const browser = createBrowser()
    const back = await runToCallback(browser, base, 'demo')
    if (back.kind !== 'redirect') throw new Error('expected redirect')
    const jar = new Map(browser.cookies(base))
    expect((await browser.request(back.url)).status).toBe(200)
    // replay: the same callback with the same (still signed and fresh) flow cookies
    for (const [k, v] of jar) browser.cookies(base).set(k, v)
    const res = await browser.request(back.url)
    expect(errorRedirect(res)).toBe('token_exchange_failed')
    expectFlowCookiesCleared(res, 'demo')
  })
})

describe('IAM answers', () => {
  const cases = [
    { answer: { status: 409 }, error: 'iam_conflict' },
    { answer: { status: 429, body: { error: 'Too many requests', retry: 60 } }, error: 'rate_limited' },
    { answer: { status: 400 }, error: 'iam_rejected' },
    { answer: { status: 500 }, error: 'iam_rejected' },
    { answer: 'drop' as const, error: 'iam_unavailable' },
  ]
  for (const { answer, error } of cases) {
    it(`redirects to redirectUrlOnError with ${error} when the IAM answers ${typeof answer === 'string' ? 'nothing' : answer.status}`, async () => {
      iam.oauthAnswer = answer
      try {
        const browser = createBrowser()
        const res = await completeByRedirect(browser, 'demo')
        expect(errorRedirect(res)).toBe(error)
        // a rate limit carries its wait, for the error page to say when to try again
        const retry = new URL(res.headers.get('location') ?? '').searchParams.get('retry')
        expect(retry).toBe(error === 'rate_limited' ? '60' : null)
        expectFlowCookiesCleared(res, 'demo')
        expect(cookieHeader(res, '__Secure-a')).toBeUndefined()
        expect(browser.cookies(base).has('session')).toBe(false)
      } finally {
        iam.oauthAnswer = undefined
      }
    })
  }
})

describe('the device cookie before the flow', () => {
  const cases = [
    { answer: { status: 403 }, error: 'iam_rejected' },
    { answer: 'drop' as const, error: 'iam_unavailable' },
  ]
  for (const { answer, error } of cases) {
    it(`redirects with ${error} instead of starting the flow when /check answers ${typeof answer === 'string' ? 'nothing' : answer.status}`, async () => {
      iam.checkAnswer = answer
      try {
        const res = await fetch(`${base}/oauth/demo`, { redirect: 'manual' })
        expect(errorRedirect(res)).toBe(error)
        expect(cookieHeader(res, 'statedemo')).toBeUndefined()
      } finally {
        iam.checkAnswer = undefined
      }
    })
  }
})
