import { describe, expect, it } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { ERROR_CODES } from '../../iam/contract/error-codes'
import { ROUTES, type RouteId } from '../../iam/contract/routes'
import { BFF_IAM_ROUTES, allowedIamRoute, isAllowedIamCall, matchRoutePath } from '../../server/utils/bff/allow-list'
import { GATEWAY_ERROR_CODES } from '../../server/utils/bff/error-codes'
import { iamFailureCode, iamRouteCall, type IamFailureCode } from '../../server/utils/bff/iam-route'

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

describe("the typed IAM client's failure codes (server/utils/bff/iam-route.ts)", () => {
  it('reads a code the route declares, and nothing the route cannot answer', () => {
    expect(iamFailureCode('orgGet', { ok: false, error: 'No such organization', code: 'org_not_found' })).toBe('org_not_found')
    expect(iamFailureCode('orgGet', { code: 'rate_limited' })).toBeUndefined()
    expect(iamFailureCode('orgGet', { code: 'not_a_code' })).toBeUndefined()
    expect(iamFailureCode('orgGet', { ok: true })).toBeUndefined()
    expect(iamFailureCode('orgGet', null)).toBeUndefined()
    expect(iamFailureCode('apiAccessToken', { code: 'audience_not_allowed' })).toBe('audience_not_allowed')
    expect(iamFailureCode('apiAccessToken', { code: 'service_unavailable' })).toBe('service_unavailable')
  })

  it("types each route's codes as a union of its own (a code it cannot answer fails the typecheck)", () => {
    const declared: IamFailureCode<'orgGet'>[] = ['org_not_found', 'org_permission_denied', 'access_token_expired', 'hmac_invalid', 'service_unavailable']
    // @ts-expect-error: GET /orgs/:orgId answers no role_not_found
    const undeclared: IamFailureCode<'orgGet'> = 'role_not_found'
    // @ts-expect-error: not a code at all
    const misspelt: IamFailureCode<'orgRoleUpdate'> = 'role_not_fund'
    const guarded: IamFailureCode<'orgRoleUpdate'> = 'impersonated'
    expect([...declared, undeclared, misspelt, guarded]).toHaveLength(8)
  })
})

describe("the gateway's own failure codes (server/utils/bff/error-codes.ts)", () => {
  it('names only meanings the IAM has no code for, in snake_case with a meaning each', () => {
    for (const [code, meaning] of Object.entries(GATEWAY_ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/)
      expect(Object.hasOwn(ERROR_CODES, code), `${code} is an IAM code already`).toBe(false)
      expect(meaning.trim()).not.toBe('')
    }
  })
})
