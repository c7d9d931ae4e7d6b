import { describe, expect, it } from 'vitest'
import { addRouteRules, findRouteRule, ROUTE_RULES, routePath } from '../../iam/contract/route-rules'
import { testRoutesEnabled } from '../../iam/test-build/enabled'
import { TEST_ROUTE_RULES } from '../../iam/test-build/route-rules'

describe('route rules table', () => {
  it('gives JSON routes the 1kb limit and POST /auth/OAuth/:providerName 4kb', () => {
    expect(findRouteRule('POST', '/signup')?.body).toEqual({ kind: 'json', limitBytes: 1024 })
    expect(findRouteRule('POST', '/api/manage/new-token')?.body).toEqual({ kind: 'json', limitBytes: 1024, invalid: 'reason' })
    expect(findRouteRule('POST', '/auth/OAuth/github')?.body).toEqual({ kind: 'json', limitBytes: 4096, text: 'storable' })
    expect(findRouteRule('POST', '/auth/OAuth/')).toBeUndefined()
  })
  it('marks the three cookie-only routes: refresh-session, logout and the access token metadata', () => {
    expect(findRouteRule('POST', '/auth/user/refresh-session')?.body.kind).toBe('cookie-only')
    expect(findRouteRule('POST', '/auth/logout')?.body.kind).toBe('cookie-only')
    expect(findRouteRule('GET', '/secret/accesstoken/metadata?x=1')?.body.kind).toBe('cookie-only')
  })
  it('leaves GET /api/public/verify untouched and POST list-metadata to its controller', () => {
    expect(findRouteRule('GET', '/api/public/verify?privilege=demo')?.body.kind).toBe('untouched')
    expect(findRouteRule('POST', '/api/manage/list-metadata')?.body.kind).toBe('none')
  })
  it('matches the way the router does: query dropped, one trailing slash ignored, case kept', () => {
    expect(routePath('/signup/?a=1')).toBe('/signup')
    expect(findRouteRule('POST', '/auth/logout/')?.body.kind).toBe('cookie-only')
    expect(findRouteRule('POST', '/SIGNUP')).toBeUndefined()
    expect(findRouteRule('post', '/signup')?.path).toBe('/signup')
    expect(findRouteRule('HEAD', '/health')?.path).toBe('/health')
  })
  it('answers each path of the table with the first rule of the table that matches it, parameterised or not', () => {
    // the reference: the table scanned in order (paths without parameters answer from a map)
    const firstMatch = (method: string, path: string) => {
      const got = path.split('/')
      return ROUTE_RULES.find((rule) => {
        const want = rule.path.split('/')
        return rule.method === method && want.length === got.length && want.every((s, i) => (s.startsWith(':') ? got[i] !== '' : s === got[i]))
      })
    }
    for (const rule of ROUTE_RULES) {
      const path = rule.path.replace(/:[^/]+/g, 'list-metadata')
      expect(findRouteRule(rule.method, path), `${rule.method} ${path}`).toBe(firstMatch(rule.method, path))
    }
  })
  it('has no rule for unknown paths or methods', () => {
    expect(findRouteRule('GET', '/nope')).toBeUndefined()
    expect(findRouteRule('PUT', '/signup')).toBeUndefined()
    // the provider's mount: no rule, whatever the depth
    for (const path of ['/oidc/token', '/oidc/token/introspection', '/oidc/a/b/c/d']) expect(findRouteRule('POST', path), path).toBeUndefined()
  })
  it("matches the test build's routes only once their rules are added, after the route table's own", () => {
    expect(findRouteRule('POST', '/__test/echo')).toBeUndefined()
    addRouteRules([...TEST_ROUTE_RULES, { method: 'POST', path: '/signup', body: { kind: 'none' } }])
    expect(findRouteRule('POST', '/__test/echo')?.body.kind).toBe('json')
    expect(findRouteRule('POST', '/signup')?.body.kind).toBe('json')
  })
  it('enables test routes only with IAM_TEST_ROUTES=1 outside production', () => {
    expect(testRoutesEnabled({ IAM_TEST_ROUTES: '1', NODE_ENV: 'development' })).toBe(true)
    expect(testRoutesEnabled({ IAM_TEST_ROUTES: '1', NODE_ENV: 'production' })).toBe(false)
    expect(testRoutesEnabled({ NODE_ENV: 'development' })).toBe(false)
  })
})
