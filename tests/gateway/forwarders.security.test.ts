/**
 * Trust boundaries, rule one (docs/architecture.md): a forwarder sends a request on only for the
 * mount it matched. Every spelling of a dot segment, an encoded separator or a double encoding is
 * swept against each forwarder of the gateway (the OpenID Provider's /oidc/**, the API proxy's
 * /api/upstream/<name>/**, a BFF route with a path parameter), sent byte for byte as written
 * (fetch would normalise `..` before sending). None may reach anything but its own mount: before
 * this rule, `/oidc/%2e%2e/openapi.json` answered the IAM's OpenAPI document and
 * `/oidc/%2e%2e/auth/OAuth/demo` signed anyone in as any verified account.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { signRequestV3 } from '../../iam/client/hmac'
import { ESCAPING_SEGMENTS } from '../helpers/escaping-segments'
import { SHARED_API_AUDIENCE, sharedBffIam } from '../helpers/shared-bff-iam'
import { browserLike, freshEmail, hmac, PASSWORD, setupStackOnSharedIam } from './bff-harness'

let upstream: Server
let upstreamPort = 0
let reachedUpstream: string[] = []

beforeAll(async () => {
  upstream = createServer((req, res) => {
    reachedUpstream.push(req.url ?? '')
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"upstream":true}')
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamPort = (upstream.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())))
beforeEach(() => {
  reachedUpstream = []
})

const stack = await setupStackOnSharedIam(() => ({ apis: [{ name: 'api', upstream: `http://127.0.0.1:${upstreamPort}/base`, audience: SHARED_API_AUDIENCE }] }))

/** One request exactly as written, to `base` (the gateway unless told). */
function raw(path: string, init: { method?: string; headers?: Record<string, string>; body?: string; base?: string } = {}): Promise<{ status: number; body: string }> {
  const url = new URL(init.base ?? stack.gateway.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end(init.body)
  })
}

async function signedInCookie(): Promise<string> {
  const b = browserLike(stack.gateway.url)
  const res = await b.call('/api/auth/signup', {
    method: 'POST',
    body: { email: freshEmail('fwd'), password: PASSWORD, confirmedPassword: PASSWORD, name: 'Forwarded User', termsConsent: 'on' },
  })
  expect(res.status, res.text).toBe(201)
  return [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ')
}

describe('the OpenID Provider forwarder (/oidc/**)', () => {
  it('reaches no IAM route outside /oidc: every escaping spelling is 400 at the gateway', async () => {
    for (const segment of ESCAPING_SEGMENTS) {
      const res = await raw(`/oidc/${segment}/openapi.json`)
      expect(res.body, segment).not.toContain('"openapi"')
      // `..`, `.` and an empty segment may be resolved by the gateway's own router before any
      // handler runs (then nothing is forwarded at all); every other spelling reaches the forwarder
      if (!['..', '.', ''].includes(segment)) expect(res.status, segment).toBe(400)
      else expect(res.status, segment).toBeGreaterThanOrEqual(400)
    }
  })

  it('signs nobody in through the OAuth sign-in route behind it', async () => {
    const profile = JSON.stringify({ sub: `x-${Date.now()}`, email: freshEmail('victim'), email_verified: true })
    for (const segment of ['%2e%2e', '.%2e', '%2e.', '%2E%2E', '%252e%252e']) {
      const res = await raw(`/oidc/${segment}/auth/OAuth/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: profile })
      expect(res.status, segment).toBe(400)
      expect(res.body, segment).not.toMatch(/accessToken|refreshToken/i)
    }
  })

  it('still forwards a canonical provider path (the discovery document)', async () => {
    const res = await raw('/oidc/.well-known/openid-configuration')
    // the shared IAM runs without the provider: its own 404, reached through the forwarder
    expect(res.status).not.toBe(400)
  })
})

describe('the IAM on arrival', () => {
  it('refuses a request signed as provider traffic whose /oidc path is not canonical', async () => {
    const iam = sharedBffIam()
    for (const path of ['/oidc/%2e%2e/openapi.json', '/oidc/.%2e/check', '/oidc/%2e%2e%2fcheck']) {
      const headers = signRequestV3({ ...hmac, method: 'GET', url: path, headers: { 'x-forwarded-for': '127.0.0.1' }, purpose: 'provider' })
      const res = await raw(path, { base: iam.url, headers: { ...headers, 'x-forwarded-for': '127.0.0.1' } })
      expect(res.status, path).toBe(400)
    }
  })
})

describe('the API proxy (/api/upstream/<name>/**)', () => {
  it('sends no escaping spelling upstream: 400, and the API hears nothing', async () => {
    const cookie = await signedInCookie()
    for (const segment of ESCAPING_SEGMENTS) {
      const res = await raw(`/api/upstream/api/${segment}/secret`, { headers: { cookie, 'sec-fetch-site': 'same-origin', accept: 'application/json' } })
      expect(res.status, segment).toBeGreaterThanOrEqual(400)
      expect(res.status, segment).toBeLessThan(500)
    }
    expect(reachedUpstream).toEqual([])
    // and a canonical path still goes through
    const ok = await raw('/api/upstream/api/things', { headers: { cookie, 'sec-fetch-site': 'same-origin', accept: 'application/json' } })
    expect(ok.status, ok.body).toBe(200)
    expect(reachedUpstream).toEqual(['/base/things'])
  })
})

describe('a BFF route with a path parameter (/api/orgs/:orgId/members)', () => {
  it('answers a 4xx, never a 5xx, and never another route, for every escaping spelling', async () => {
    const cookie = await signedInCookie()
    for (const segment of ESCAPING_SEGMENTS) {
      const res = await raw(`/api/orgs/${segment}/members`, { headers: { cookie, 'sec-fetch-site': 'same-origin', accept: 'application/json' } })
      expect(res.status, `${segment}: ${res.body}`).toBeGreaterThanOrEqual(400)
      expect(res.status, `${segment}: ${res.body}`).toBeLessThan(500)
    }
  })
})
