/**
 * The spec's authentication chain starts with requireAccessToken and requireRefreshToken: a request
 * without credentials is 401 before any body rule (Content-Type, empty body, size, JSON) answers.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { ROUTE_RULES } from '../../iam/contract/route-rules'
import { CHROME_UA, cookieHeader, signupUser, type Session } from '../helpers/accounts'
import { sharedIam } from '../helpers/shared-iam'

const iam = sharedIam()
let user: Session
beforeAll(async () => {
  user = await signupUser(iam, { client: { ip: '203.0.113.150' } })
})

/** Every route whose spec chain is full authentication (requireAccessToken ... protectRoute). */
const FULL_AUTH_ROUTES = [
  ['POST', '/custom/mfa/PAYMENT_CONFIRM'],
  ['GET', '/auth/verify-custom-mfa'],
  ['POST', '/auth/verify-custom-mfa'],
  ['POST', '/update/email'],
  ['GET', '/secret/data'],
  ['GET', '/secret/accesstoken/metadata'],
  ['GET', '/api/manage/list-metadata'],
  ['POST', '/api/manage/list-metadata'],
  ['POST', '/api/manage/new-token'],
  ['POST', '/api/manage/revoke'],
  ['POST', '/api/manage/metadata'],
  ['POST', '/api/manage/rotate'],
  ['POST', '/api/manage/ip-restriction-update'],
  ['POST', '/api/manage/privilege-update'],
  // beyond the spec (issue 11, 4.3 and 4.4), full authentication as well
  ['POST', '/api/manage/revoke-all'],
  ['POST', '/auth/resend-verification'],
  // account security
  ['GET', '/auth/sessions'],
  ['POST', '/auth/sessions/revoke'],
  ['POST', '/auth/profile'],
  ['POST', '/auth/sessions/revoke-others'],
  ['POST', '/auth/change-password'],
  ['POST', '/auth/reauthenticate'],
  ['GET', '/auth/sign-in-methods'],
  ['GET', '/auth/security-events'],
  // two-step sign-in and passkeys
  ['GET', '/auth/totp'],
  ['POST', '/auth/totp/setup'],
  ['POST', '/auth/totp/enable'],
  ['POST', '/auth/totp/disable'],
  ['POST', '/auth/totp/recovery-codes'],
  ['POST', '/auth/verify-custom-mfa/second-factor'],
  ['POST', '/update/email/second-factor'],
  ['GET', '/auth/passkeys'],
  ['POST', '/auth/passkeys/register/options'],
  ['POST', '/auth/passkeys/register/verify'],
  ['POST', '/auth/passkeys/delete'],
  ['POST', '/auth/passkeys/rename'],
  // the OpenID Provider's sign-in and consent steps for the signed-in account
  ['POST', '/auth/oidc/interaction/:uid/login'],
  ['POST', '/auth/oidc/interaction/:uid/consent'],
  // the account's connected apps
  ['GET', '/auth/oidc/apps'],
  ['POST', '/auth/oidc/apps/revoke'],
  ['POST', '/auth/set-password'],
  ['POST', '/auth/linked-accounts/unlink'],
] as const

/** Full-authentication POST routes that take no body (their request rule is not JSON). */
const NO_BODY_POSTS: readonly string[] = [
  '/api/manage/list-metadata',
  '/auth/resend-verification',
  '/auth/totp/setup',
  '/auth/totp/recovery-codes',
  '/auth/passkeys/register/options',
  '/auth/oidc/interaction/:uid/login',
  '/auth/oidc/interaction/:uid/consent',
]

const JSON_ROUTES = FULL_AUTH_ROUTES.filter(
  ([method, path]) => method === 'POST' && !NO_BODY_POSTS.includes(path),
)

const LINK_QUERY = `?token=a.b.c&random=${'A'.repeat(43)}&reason=change_email&visitor=v1`

interface Creds {
  bearer?: string
  session?: string
}

function send(method: string, path: string, creds: Creds, init: { contentType?: string; body?: string } = {}) {
  const headers: Record<string, string> = { 'user-agent': CHROME_UA, 'x-forwarded-for': user.ip }
  const cookie = cookieHeader({ canary_id: user.canary, session: creds.session })
  if (cookie) headers.cookie = cookie
  if (creds.bearer) headers.authorization = `Bearer ${creds.bearer}`
  if (init.contentType) headers['content-type'] = init.contentType
  const query = path === '/update/email' || path.startsWith('/auth/verify-custom-mfa') ? LINK_QUERY : ''
  return fetch(`${iam.url}${path}${query}`, { method, headers, body: init.body })
}

const unauthorized = (error: string) => ({ ok: false, date: expect.any(String), error })

describe('full-authentication routes: credentials before body rules', () => {
  it('the route table marks exactly the full-authentication routes (the spec\'s and ours)', () => {
    const marked = ROUTE_RULES.filter((rule) => rule.auth === 'full').map((rule) => `${rule.method} ${rule.path}`)
    const expected = FULL_AUTH_ROUTES.map(([method, path]) =>
      `${method} ${path.replace('/PAYMENT_CONFIRM', '/:reason')}`,
    )
    expect(marked.sort()).toEqual(expected.sort())
  })

  for (const [method, path] of FULL_AUTH_ROUTES) {
    it(`${method} ${path} answers 401 Missing Bearer token without credentials, even with a wrong Content-Type`, async () => {
      const init = method === 'POST' ? { contentType: 'text/plain', body: 'hello' } : { contentType: 'text/plain' }
      const res = await send(method, path, {}, init)
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(unauthorized('Missing Bearer token'))
    })
  }

  for (const [method, path] of JSON_ROUTES) {
    it(`${method} ${path} answers 401 Missing Bearer token without credentials and an empty body`, async () => {
      const res = await send(method, path, {}, { contentType: 'application/json' })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(unauthorized('Missing Bearer token'))
    })

    it(`${method} ${path} answers 401 Refresh token missing with a Bearer token but no session cookie, before the body rules`, async () => {
      const res = await send(method, path, { bearer: user.accessToken }, { contentType: 'text/plain', body: 'hello' })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(unauthorized('Refresh token missing'))
    })

    it(`${method} ${path} still applies the body rules with credentials (403, 403, 413, 400)`, async () => {
      const creds = { bearer: user.accessToken, session: user.refreshToken }
      const wrongType = await send(method, path, creds, { contentType: 'text/plain', body: '{}' })
      expect(wrongType.status).toBe(403)
      expect(await wrongType.json()).toEqual({ error: 'not allowed.' })
      expect((await send(method, path, creds, { contentType: 'application/json' })).status).toBe(403)
      // one byte past the route's own limit (1 kB, or more for a passkey credential)
      const rule = ROUTE_RULES.find((r) => r.method === method && r.path === path)
      const limit = rule?.body.kind === 'json' ? rule.body.limitBytes : 1024
      const big = JSON.stringify({ pad: 'x'.repeat(limit) })
      expect((await send(method, path, creds, { contentType: 'application/json', body: big })).status).toBe(413)
      expect((await send(method, path, creds, { contentType: 'application/json', body: '{"a":' })).status).toBe(400)
    })
  }

  it('POST /auth/logout answers 401 Missing Bearer token without credentials, before the cookie-only 400s', async () => {
    const res = await send('POST', '/auth/logout?x=1', {}, { contentType: 'application/json', body: '{}' })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(unauthorized('Missing Bearer token'))
  })

  it('POST /auth/user/refresh-session keeps answering 401 Refresh token missing first', async () => {
    const res = await send('POST', '/auth/user/refresh-session?x=1', { bearer: 'x' }, { contentType: 'application/json', body: '{}' })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(unauthorized('Refresh token missing'))
  })
})
