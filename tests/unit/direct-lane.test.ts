import { describe, expect, it } from 'vitest'
import { laneOf } from '../../server/utils/direct-lane'

const fetched = (method: string, url: string) => laneOf(method, url, '*/*', 'empty')

describe('the gateway\'s direct lane takes the provider\'s machine endpoints, by exact raw path', () => {
  it('takes the endpoints a client calls, with or without a query, whatever the request looks like', () => {
    for (const path of ['/oidc/token', '/oidc/token/introspection', '/oidc/token/revocation', '/oidc/jwks', '/oidc/me', '/oidc/request', '/oidc/device/auth', '/oidc/reg', '/oidc/.well-known/openid-configuration']) {
      expect(fetched('POST', path), path).toBe('provider')
      expect(fetched('GET', `${path}?x=1`), `${path}?x=1`).toBe('provider')
      expect(laneOf('GET', path, 'text/html', 'document'), path).toBe('provider')
    }
  })

  it('leaves every page a browser navigates to on the page path: sign-in, consent, sign-out, device code entry', () => {
    for (const path of ['/oidc/auth', '/oidc/auth?client_id=a', '/oidc/session/end', '/oidc/session/end/confirm', '/oidc/device', '/oidc/interaction/abc', '/oidc', '/oidc/']) {
      expect(fetched('GET', path), path).toBeUndefined()
    }
  })

  it('leaves encoded, dotted and extended variants to the page path, whose canonical check refuses them', () => {
    for (const path of ['/oidc/%74oken', '/oidc/./token', '/oidc/token/', '/oidc/token/../jwks', '/oidc//token', '/OIDC/token', '/oidc/token;x', '/oidc/token2', '/oidc/reg/abc', '/x/oidc/token']) {
      expect(fetched('POST', path), path).toBeUndefined()
    }
  })
})

describe('the direct lane takes a page script\'s session read and API calls, never a person\'s navigation', () => {
  it('takes GET /api/auth/session and the API proxy in every method', () => {
    expect(fetched('GET', '/api/auth/session')).toBe('bff')
    expect(fetched('GET', '/api/auth/session?x=1')).toBe('bff')
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/api/upstream/orders', '/api/upstream/orders/', '/api/upstream/orders/items/42', '/api/upstream/orders/items?page=2', '/api/upstream/my_api-2/a.json']) {
        expect(fetched(method, path), `${method} ${path}`).toBe('bff')
      }
    }
  })

  it('leaves a document request to the page path, by Sec-Fetch-Dest or, without it, by Accept', () => {
    expect(laneOf('GET', '/api/auth/session', '*/*', 'document')).toBeUndefined()
    expect(laneOf('GET', '/api/upstream/orders/report', 'text/html,application/xhtml+xml', undefined)).toBeUndefined()
    expect(laneOf('GET', '/api/upstream/orders/report', 'application/json', undefined)).toBe('bff')
  })

  it('leaves every other BFF route, and another method on the session, to the page path', () => {
    for (const [method, path] of [['POST', '/api/auth/session'], ['GET', '/api/auth/sessions'], ['POST', '/api/auth/login'], ['GET', '/api/auth/session/x'], ['GET', '/api/upstream'], ['GET', '/api/upstream/']] as const) {
      expect(fetched(method, path), `${method} ${path}`).toBeUndefined()
    }
  })

  it('leaves proxy paths h3 would decode or normalise before routing to the page path', () => {
    for (const path of ['/api/upstream/%2e%2e/x', '/api/upstream/or%64ers', '/api/upstream/orders/a%2Fb', '/api/upstream/orders/../x', '/api/upstream/orders/./x', '/api/upstream/orders//x', '/api/upstream/orders/..', '/api/upstream/orders/.']) {
      expect(fetched('GET', path), path).toBeUndefined()
    }
  })

  it('refuses a long proxy path that fails at its last character without trying every way to split it', () => {
    expect(fetched('GET', `/api/upstream/orders/${'a'.repeat(5_000)}%`)).toBeUndefined()
    expect(fetched('GET', `/api/upstream/orders/${'a/'.repeat(2_000)}..`)).toBeUndefined()
    expect(fetched('GET', `/api/upstream/orders/${'a/'.repeat(2_000)}b`)).toBe('bff')
  })
})
