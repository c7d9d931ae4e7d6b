/**
 * Trust boundaries, rule two (docs/architecture.md): a gateway signature names the purpose it was
 * made for, and each IAM route accepts only the purposes its table entry declares. A correctly
 * signed request of any other purpose is 401 `Purpose not accepted` on every route of the table
 * and on the OpenID Provider's mount, before the route reads anything. Before this rule, any
 * request the gateway signed reached every route: forwarded provider traffic reached the OAuth
 * sign-in route, which took any posted profile.
 */
// store-independent: a purpose a route does not accept is refused before the route reads anything, so no store is reached
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GATEWAY_PURPOSES, signRequestV2, signRequestV3, type GatewayPurpose } from '../../iam/client/hmac'
import { DEFAULT_PURPOSES, type RouteContract } from '../../iam/contract/define'
import { ROUTES } from '../../iam/contract/routes'
import { startIam, type IamServer } from '../helpers/iam-server'

const hmac = { clientId: 'gateway', sharedSecret: 'purpose-test-shared-secret-0123456789abcdef' }
const REMOTE = '203.0.113.9'

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({
    config: {
      service: { Hmac: { ...hmac, requireBodyDigest: true }, proxy: { trust: true, ipToTrust: '127.0.0.1' } },
      oidc: { enabled: true },
    },
  })
}, 180_000)
afterAll(() => iam?.stop())

/** A signed request as the gateway would send it, for `purpose` (or version 2, naming none). */
async function signedCall(method: string, path: string, purpose: GatewayPurpose | 'none', body?: string) {
  const covered = { 'x-forwarded-for': REMOTE }
  const headers =
    purpose === 'none'
      ? signRequestV2({ ...hmac, method, url: path, body, headers: covered })
      : signRequestV3({ ...hmac, method, url: path, body, headers: covered, purpose })
  const res = await fetch(`${iam.url}${path}`, {
    method,
    headers: { ...headers, ...covered, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  })
  const text = await res.text()
  return { status: res.status, text }
}

const concrete = (path: string) => path.replace(/:[A-Za-z0-9_]+/g, 'abc')
/** A JSON route's body; other routes read none, so their signature covers the empty body. */
const bodyFor = (route: { request: { kind: string } }) => (route.request.kind === 'json' ? '{}' : undefined)
const signedRoutes = (Object.entries(ROUTES) as [string, RouteContract][]).filter(([, route]) => route.hmac !== false)

describe('each route accepts only the purposes it declares', () => {
  it('refuses every correctly signed request of an undeclared purpose with 401 on every route of the table', async () => {
    let checked = 0
    for (const [id, route] of signedRoutes) {
      const accepted: readonly string[] = route.purposes ?? DEFAULT_PURPOSES
      for (const purpose of GATEWAY_PURPOSES.filter((p) => !accepted.includes(p))) {
        const res = await signedCall(route.method, concrete(route.path), purpose, bodyFor(route))
        expect(res.status, `${id} (${route.method} ${route.path}) signed for ${purpose}: ${res.text}`).toBe(401)
        expect(res.text, id).toContain('Purpose not accepted')
        checked++
      }
    }
    // every route refuses at least one purpose: provider traffic reaches none of them
    expect(checked).toBeGreaterThanOrEqual(signedRoutes.length)
  })

  it('lets the declared purpose through the signature check on every route of the table', async () => {
    for (const [id, route] of signedRoutes) {
      const purpose = (route.purposes ?? DEFAULT_PURPOSES)[0]!
      const res = await signedCall(route.method, concrete(route.path), purpose, bodyFor(route))
      expect(res.text, id).not.toMatch(/Purpose not accepted|Invalid signature/)
    }
  })

  it('reaches the OAuth sign-in route only with the callback purpose: a BFF or provider signature over a profile is 401', async () => {
    const profile = JSON.stringify({ sub: 'someone', email: 'victim@example.com', email_verified: true })
    for (const purpose of ['bff', 'provider'] as const) {
      const res = await signedCall('POST', '/auth/OAuth/demo', purpose, profile)
      expect(res.status, purpose).toBe(401)
    }
    expect((await signedCall('POST', '/auth/OAuth/demo', 'oauth-callback', profile)).text).not.toContain('Purpose not accepted')
  })
})

describe('the OpenID Provider mount accepts provider traffic only', () => {
  it('refuses a BFF, callback or unnamed (version 2) signature on /oidc/**, and serves a provider one', async () => {
    for (const purpose of ['bff', 'oauth-callback', 'none'] as const) {
      const res = await signedCall('GET', '/oidc/.well-known/openid-configuration', purpose)
      expect(res.status, purpose).toBe(401)
      expect(res.text, purpose).toContain('Purpose not accepted')
    }
    const served = await signedCall('GET', '/oidc/.well-known/openid-configuration', 'provider')
    expect(served.status, served.text).toBe(200)
    expect(JSON.parse(served.text)).toHaveProperty('issuer')
  })
})

describe('the SCIM mount accepts SCIM traffic only', () => {
  it('refuses a BFF, provider, callback or unnamed (version 2) signature on /scim/v2/**, and lets a scim one through to the token check', async () => {
    for (const purpose of ['bff', 'provider', 'oauth-callback', 'none'] as const) {
      const res = await signedCall('GET', '/scim/v2/Users', purpose)
      expect(res.status, purpose).toBe(401)
      expect(res.text, purpose).toContain('Purpose not accepted')
    }
    const served = await signedCall('GET', '/scim/v2/ServiceProviderConfig', 'scim')
    // past the signature: the SCIM service's own 401, asking for the organization's bearer token
    expect(served.status, served.text).toBe(401)
    expect(JSON.parse(served.text)).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' })
  })
})
