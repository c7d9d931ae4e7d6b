/**
 * The authentication chain (iam/http/auth.ts) starts with requireAccessToken and requireRefreshToken: a request
 * without credentials is 401 before any body rule (Content-Type, empty body, size, JSON) answers.
 * The routes are the table's (iam/contract/): every entry with auth 'full', so a new one is covered
 * without touching this file.
 */
import { request as httpRequest } from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import { CHROME_UA, cookieHeader, signupUser, type Session } from '../helpers/accounts'
import { sharedIam } from '../helpers/shared-iam'
import { FULL_AUTH } from './route-table'

const iam = sharedIam()
let user: Session
beforeAll(async () => {
  user = await signupUser(iam, { client: { ip: '203.0.113.150' } })
})

/** Every route whose chain is full authentication (requireAccessToken ... protectRoute), from the table. */
const FULL_AUTH_ROUTES = FULL_AUTH
/** Those that take a JSON body (their request rule is JSON). */
const JSON_ROUTES = FULL_AUTH.filter((route) => route.entry.request.kind === 'json')

interface Creds {
  bearer?: string
  session?: string
}

/** `url`: a concrete path, with the link query where the route takes one (tests/iam/route-table.ts). */
function send(method: string, url: string, creds: Creds, init: { contentType?: string; body?: string } = {}) {
  const headers: Record<string, string> = { 'user-agent': CHROME_UA, 'x-forwarded-for': user.ip }
  const cookie = cookieHeader({ canary_id: user.canary, session: creds.session })
  if (cookie) headers.cookie = cookie
  if (creds.bearer) headers.authorization = `Bearer ${creds.bearer}`
  if (init.contentType) headers['content-type'] = init.contentType
  return fetch(`${iam.url}${url}`, { method, headers, body: init.body })
}

/**
 * The status of a POST whose declared length is `bytes`, headers only: a body of megabytes would
 * meet a closed connection (the IAM answers 413 without reading it, iam/http/raw-body.ts), so a
 * client writing it sees EPIPE instead of the answer.
 */
function declaredLength(url: string, creds: Creds, bytes: number): Promise<number> {
  const headers: Record<string, string> = {
    'user-agent': CHROME_UA,
    'x-forwarded-for': user.ip,
    'content-type': 'application/json',
    'content-length': String(bytes),
    cookie: cookieHeader({ canary_id: user.canary, session: creds.session }),
    ...(creds.bearer ? { authorization: `Bearer ${creds.bearer}` } : {}),
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${iam.url}${url}`, { method: 'POST', headers }, (res) => {
      res.resume()
      res.on('end', () => {
        resolve(res.statusCode ?? 0)
        req.destroy()
      })
    })
    req.on('error', reject)
    req.flushHeaders()
  })
}

/** Past this, a route's too-large body is declared rather than sent (declaredLength). */
const SENT_BODY_MAX_BYTES = 64 * 1024

const unauthorized = (error: 'Missing Bearer token' | 'Refresh token missing') => ({
  ok: false,
  date: expect.any(String),
  error,
  code: error === 'Missing Bearer token' ? 'access_token_missing' : 'session_missing',
})

describe('full-authentication routes: credentials before body rules', () => {
  it('takes its routes from the table: 40+ full-authentication routes, POST /auth/change-password among them, the JSON ones apart', () => {
    const keys = FULL_AUTH_ROUTES.map((route) => `${route.method} ${route.pattern}`)
    expect(keys.length).toBeGreaterThanOrEqual(40)
    expect(keys).toEqual(expect.arrayContaining(['POST /auth/change-password', 'GET /secret/data', 'POST /custom/mfa/:reason', 'POST /api/manage/new-token']))
    expect(JSON_ROUTES.length).toBeGreaterThanOrEqual(25)
    expect(JSON_ROUTES.map((route) => route.pattern)).not.toContain('/auth/totp/setup')
  })

  for (const { method, pattern, url } of FULL_AUTH_ROUTES) {
    it(`${method} ${pattern} answers 401 Missing Bearer token without credentials, even with a wrong Content-Type`, async () => {
      const init = method === 'POST' ? { contentType: 'text/plain', body: 'hello' } : { contentType: 'text/plain' }
      const res = await send(method, url, {}, init)
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(unauthorized('Missing Bearer token'))
    })
  }

  for (const { method, pattern, url, entry } of JSON_ROUTES) {
    it(`${method} ${pattern} answers 401 Missing Bearer token without credentials and an empty body`, async () => {
      const res = await send(method, url, {}, { contentType: 'application/json' })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(unauthorized('Missing Bearer token'))
    })

    it(`${method} ${pattern} answers 401 Refresh token missing with a Bearer token but no session cookie, before the body rules`, async () => {
      const res = await send(method, url, { bearer: user.accessToken }, { contentType: 'text/plain', body: 'hello' })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(unauthorized('Refresh token missing'))
    })

    it(`${method} ${pattern} still applies the body rules with credentials (403, 403, 413, 400)`, async () => {
      const creds = { bearer: user.accessToken, session: user.refreshToken }
      const wrongType = await send(method, url, creds, { contentType: 'text/plain', body: '{}' })
      expect(wrongType.status).toBe(403)
      expect(await wrongType.json()).toEqual({ error: 'not allowed.', code: 'content_type_not_json' })
      expect((await send(method, url, creds, { contentType: 'application/json' })).status).toBe(403)
      // one byte past the route's own limit (1 kB, or more for a passkey credential)
      const limit = entry.request.kind === 'json' ? entry.request.limitBytes : 1024
      if (limit > SENT_BODY_MAX_BYTES) {
        expect(await declaredLength(url, creds, limit + 1)).toBe(413)
      } else {
        const big = JSON.stringify({ pad: 'x'.repeat(limit) })
        expect((await send(method, url, creds, { contentType: 'application/json', body: big })).status).toBe(413)
      }
      expect((await send(method, url, creds, { contentType: 'application/json', body: '{"a":' })).status).toBe(400)
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
