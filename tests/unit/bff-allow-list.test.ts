import { describe, expect, it } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { ROUTES, type RouteId } from '../../iam/contract/routes'
import { BFF_IAM_ROUTES, allowedIamRoute, isAllowedIamCall, matchRoutePath } from '../../server/utils/bff/allow-list'
import { iamRouteCall } from '../../server/utils/bff/iam-route'

const table = Object.entries(ROUTES as Record<RouteId, RouteContract>) as Array<[RouteId, RouteContract]>
const allowed = new Set<RouteId>(BFF_IAM_ROUTES)

describe('the BFF allow-list, derived from the route table', () => {
  it('allows each listed route at its table method and path, and no other route of the table', () => {
    for (const [id, route] of table.filter(([, r]) => !r.path.includes(':'))) {
      expect({ id, allowed: allowedIamRoute(route.method, route.path) ?? null }).toEqual({ id, allowed: allowed.has(id) ? id : null })
    }
    expect(isAllowedIamCall('GET', '/operational/config')).toBe(false)
    expect(isAllowedIamCall('POST', '/auth/OAuth/demo')).toBe(false)
    expect(isAllowedIamCall('GET', '/login')).toBe(false)
  })
  it("refuses a path parameter the entry's params schema refuses", () => {
    for (const reason of ['payment', 'AB', 'A'.repeat(65)]) {
      expect(ROUTES.customMfa.params.safeParse({ reason }).success).toBe(false)
      expect(isAllowedIamCall('POST', `/custom/mfa/${reason}`)).toBe(false)
    }
    expect(isAllowedIamCall('POST', '/custom/mfa/PAYMENT_CONFIRM')).toBe(true)
    expect(isAllowedIamCall('POST', '/custom/mfa/change_email')).toBe(true)
  })
  it('refuses a path parameter that is empty, undecodable or decodes to a slash', () => {
    for (const segment of ['', '%E0%A4%A', '..%2Fhealth', 'A%2FB']) expect(isAllowedIamCall('POST', `/custom/mfa/${segment}`)).toBe(false)
    expect(isAllowedIamCall('POST', '/custom/mfa/PAYMENT/CONFIRM')).toBe(false)
  })
  it('decodes path parameters as the IAM router does', () => {
    expect(matchRoutePath({ path: '/custom/mfa/:reason' }, '/custom/mfa/A%5FB')).toEqual({ reason: 'A_B' })
    expect(matchRoutePath({ path: '/custom/mfa/:reason' }, '/custom/mfa')).toBeUndefined()
  })
  it('builds the method and path of a typed call from the table, encoding parameters', () => {
    expect(iamRouteCall('customMfa', { params: { reason: 'PAYMENT_CONFIRM' }, body: {} })).toMatchObject({ method: 'POST', path: '/custom/mfa/PAYMENT_CONFIRM' })
    expect(iamRouteCall('customMfa', { params: { reason: 'a/b' } }).path).toBe('/custom/mfa/a%2Fb')
    expect(iamRouteCall('publicVerify', { query: { privilege: 'demo' }, apiKey: 'k' })).toEqual({ method: 'GET', path: '/api/public/verify', query: { privilege: 'demo' }, apiKey: 'k' })
  })
})
