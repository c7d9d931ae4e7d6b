import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ACCOUNT_ACTION_ROUTES } from '../../iam/contract/account-actions'
import { ACCOUNT_EXPORT_ROUTES } from '../../iam/contract/account-export'
import { ACCOUNT_SECURITY_ROUTES } from '../../iam/contract/account-security'
import { ACCOUNT_DELETION_ROUTES } from '../../iam/contract/account-deletion'
import { ADMIN_ROUTES } from '../../iam/contract/admin'
import { MAIL_TEMPLATE_ROUTES } from '../../iam/contract/mail-templates'
import { API_TOKEN_ROUTES } from '../../iam/contract/api-tokens'
import { AUTH_ROUTES } from '../../iam/contract/auth'
import type { RouteContract } from '../../iam/contract/define'
import { ERROR_CODE_LIST, ERROR_CODES } from '../../iam/contract/error-codes'
import { GATEWAY_AUTH_ROUTES } from '../../iam/contract/gateway-auth'
import { codeProblem, declaredCodes, documentedResponses, errorFail } from '../../iam/contract/responses'
import { ROUTES } from '../../iam/contract/routes'
import { OIDC_ROUTES } from '../../iam/contract/oidc'
import { OIDC_CLIENT_ROUTES } from '../../iam/contract/oidc-clients'
import { ORGANIZATION_ROUTES } from '../../iam/contract/organizations'
import { PASSKEY_ROUTES } from '../../iam/contract/passkeys'
import { PROFILE_PICTURE_ROUTES } from '../../iam/contract/profile-picture'
import { SECOND_FACTOR_ROUTES } from '../../iam/contract/second-factor'
import { SCIM_ROUTES } from '../../iam/contract/scim'
import { ENTERPRISE_ROUTES } from '../../iam/contract/enterprise'
import { SERVICE_ROUTES } from '../../iam/contract/service'
import { WEBHOOK_ROUTES } from '../../iam/contract/webhooks'
import { covers, listFiles, routeFiles as listRouteFiles } from '../helpers/route-files'

const CONTRACT_DIR = join(import.meta.dirname, '../../iam/contract')
const AREAS = [AUTH_ROUTES, ACCOUNT_ACTION_ROUTES, GATEWAY_AUTH_ROUTES, API_TOKEN_ROUTES, SERVICE_ROUTES, ACCOUNT_SECURITY_ROUTES, ACCOUNT_EXPORT_ROUTES, SECOND_FACTOR_ROUTES, PASSKEY_ROUTES, OIDC_ROUTES, OIDC_CLIENT_ROUTES, ORGANIZATION_ROUTES, ADMIN_ROUTES, MAIL_TEMPLATE_ROUTES, ACCOUNT_DELETION_ROUTES, WEBHOOK_ROUTES, ENTERPRISE_ROUTES, SCIM_ROUTES, PROFILE_PICTURE_ROUTES]
const entries = Object.entries(ROUTES) as Array<[string, RouteContract]>

const routeFiles = listRouteFiles()
const pathParams = (path: string) => path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1))

describe('route table vs route files (iam/routes)', () => {
  it('finds the route files (the test reads the right folder)', () => {
    expect(routeFiles.map((r) => `${r.method} ${r.path}`)).toContain('POST /auth/OAuth/:providerName')
    expect(routeFiles.map((r) => `${r.method} ${r.path}`)).toContain('GET /.well-known/jwks.json')
  })

  it('covers every route file with at least one table entry', () => {
    const orphans = routeFiles.filter((route) => !entries.some(([, entry]) => covers(route, entry))).map((r) => r.file)
    expect(orphans, `route files without a table entry in iam/contract/: ${orphans.join(', ')}`).toEqual([])
  })

  it('serves every table entry by exactly one route file', () => {
    const wrong = entries
      .map(([id, entry]) => ({ id, files: routeFiles.filter((route) => covers(route, entry)).map((r) => r.file) }))
      .filter(({ files }) => files.length !== 1)
      .map(({ id, files }) => `${id} (${files.length ? files.join(', ') : 'no route file'})`)
    expect(wrong, `table entries not served by exactly one file under iam/routes/: ${wrong.join('; ')}`).toEqual([])
  })
})

describe('route table', () => {
  it('declares every id once across the area files', () => {
    const ids = AREAS.flatMap((area) => Object.keys(area))
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([])
    expect(Object.keys(ROUTES).sort()).toEqual([...ids].sort())
  })

  it('declares every method + path once', () => {
    const keys = entries.map(([, e]) => `${e.method} ${e.path}`)
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([])
  })

  it('has a params schema with exactly the path parameters of each entry', () => {
    const wrong = entries.filter(([, e]) => {
      const names = pathParams(e.path)
      if (names.length === 0) return e.params !== undefined
      return !(e.params instanceof z.ZodObject) || Object.keys(e.params.shape).sort().join() !== names.sort().join()
    })
    expect(wrong.map(([id]) => id)).toEqual([])
  })

  it('gives every JSON route a body schema and no other route one', () => {
    const wrong = entries.filter(([, e]) => (e.request.kind === 'json') !== (e.body !== undefined))
    expect(wrong.map(([id]) => id)).toEqual([])
  })

  it('documents at least one 2xx answer for every entry', () => {
    const wrong = entries.filter(([, e]) => !Object.keys(e.responses).some((s) => Number(s) >= 200 && Number(s) < 300))
    expect(wrong.map(([id]) => id)).toEqual([])
  })

  it("documents the authentication chain's 401 wherever credentials are required", () => {
    const wrong = entries.filter(([, e]) => e.auth !== 'none' && !e.responses[401])
    expect(wrong.map(([id]) => id)).toEqual([])
  })

  it('documents 429 on every entry that consumes a limiter', () => {
    const wrong = entries.filter(([, e]) => e.limiters.length > 0 && !e.responses[429])
    expect(wrong.map(([id]) => id)).toEqual([])
  })

  it('describes every documented status', () => {
    const wrong = entries.flatMap(([id, e]) =>
      Object.entries(e.responses)
        .filter(([status, r]) => !(Number(status) >= 100 && Number(status) < 600) || r.description.trim() === '')
        .map(([status]) => `${id} ${status}`),
    )
    expect(wrong).toEqual([])
  })
})

describe('failure codes (iam/contract/error-codes.ts)', () => {
  it('names every code in snake_case with a one-line meaning', () => {
    const wrong = Object.entries(ERROR_CODES).filter(([code, meaning]) => !/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/.test(code) || meaning.trim() === '' || meaning.includes('\n'))
    expect(wrong.map(([code]) => code)).toEqual([])
  })

  it('declares codes for every failure status of every entry (400 and up, and the 202 of a pending MFA)', () => {
    const wrong = entries.flatMap(([id, e]) =>
      Object.entries(documentedResponses(e))
        .filter(([status, r]) => Number(status) >= 400 && r.body !== undefined && !(r.codes?.length))
        .map(([status]) => `${id} ${status}`),
    )
    expect(wrong, `failure statuses without codes: ${wrong.join(', ')}`).toEqual([])
    expect(entries.filter(([, e]) => e.auth === 'full').every(([, e]) => declaredCodes(e, 202).includes('mfa_required'))).toBe(true)
  })

  it('declares only codes the vocabulary lists, and uses every code of the vocabulary somewhere', () => {
    const declared = new Set(entries.flatMap(([, e]) => Object.values(documentedResponses(e)).flatMap((r) => r.codes ?? [])))
    expect([...declared].filter((code) => !Object.hasOwn(ERROR_CODES, code))).toEqual([])
    expect(ERROR_CODE_LIST.filter((code) => !declared.has(code)), 'codes no route declares').toEqual([])
  })

  it('makes `code` a required member of the shared failure body', () => {
    const body = { ok: false, date: new Date().toISOString(), error: 'Validation failed' }
    expect(errorFail.safeParse(body).success).toBe(false)
    expect(errorFail.safeParse({ ...body, code: 'validation_failed' }).success).toBe(true)
    expect(errorFail.safeParse({ ...body, code: 'not_a_code' }).success).toBe(false)
  })
})

describe('codeProblem: what the test build refuses (iam/test-build/plugins/declared-codes.ts)', () => {
  const orgGet = ROUTES.orgGet as RouteContract
  const fail = (code?: string) => ({ ok: false, error: 'x', ...(code === undefined ? {} : { code }) })

  it('accepts a code the route declares for that status, and one the platform adds around every route', () => {
    expect(codeProblem(orgGet, 404, fail('org_not_found'))).toBeUndefined()
    expect(codeProblem(orgGet, 401, fail('access_token_expired'))).toBeUndefined()
    expect(codeProblem(orgGet, 503, fail('service_unavailable'))).toBeUndefined()
    expect(codeProblem(orgGet, 401, fail('hmac_invalid'))).toBeUndefined()
  })

  it('refuses a code the route does not declare for that status, even one it declares for another', () => {
    expect(codeProblem(orgGet, 404, fail('role_not_found'))).toMatch(/role_not_found, which GET \/orgs\/:orgId does not declare for 404/)
    expect(codeProblem(orgGet, 403, fail('org_not_found'))).toMatch(/does not declare for 403/)
  })

  it('refuses a failure without a code and a code outside the vocabulary, on any path', () => {
    expect(codeProblem(orgGet, 400, fail())).toBe('a 400 answer without a code')
    expect(codeProblem(undefined, 418, fail())).toBe('a 418 answer without a code')
    expect(codeProblem(undefined, 400, fail('Validation failed'))).toMatch(/does not list/)
  })

  it('checks a code on a success (the 202 of a pending MFA), not a success without one, nor a text body', () => {
    expect(codeProblem(orgGet, 202, { mfa: true, message: 'm', code: 'mfa_required' })).toBeUndefined()
    expect(codeProblem(ROUTES.login as RouteContract, 202, { code: 'mfa_required' })).toMatch(/does not declare for 202/)
    expect(codeProblem(orgGet, 200, { ok: true })).toBeUndefined()
    expect(codeProblem(orgGet, 403, 'Forbidden')).toBeUndefined()
  })

  it('lets any 5xx carry internal_error: the final handler keeps a status a handler set', () => {
    expect(codeProblem(orgGet, 502, fail('internal_error'))).toBeUndefined()
    expect(codeProblem(orgGet, 502, fail('mail_failed'))).toMatch(/does not declare for 502/)
  })
})

describe('iam/contract imports', () => {
  it('imports only zod and its own folder (the gateway imports it: no h3, Nitro, db, lib, http or features)', () => {
    const wrong = listFiles(CONTRACT_DIR).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)]
        .map((m) => m[1]!)
        .filter((spec) => spec !== 'zod' && !spec.startsWith('./'))
        .map((spec) => `${relative(CONTRACT_DIR, file)}: ${spec}`),
    )
    expect(wrong).toEqual([])
  })
})
