import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ACCOUNT_ACTION_ROUTES } from '../../iam/contract/account-actions'
import { ACCOUNT_SECURITY_ROUTES } from '../../iam/contract/account-security'
import { ACCOUNT_DELETION_ROUTES } from '../../iam/contract/account-deletion'
import { ADMIN_ROUTES } from '../../iam/contract/admin'
import { API_TOKEN_ROUTES } from '../../iam/contract/api-tokens'
import { AUTH_ROUTES } from '../../iam/contract/auth'
import type { RouteContract } from '../../iam/contract/define'
import { GATEWAY_AUTH_ROUTES } from '../../iam/contract/gateway-auth'
import { ROUTES } from '../../iam/contract/routes'
import { OIDC_ROUTES } from '../../iam/contract/oidc'
import { ORGANIZATION_ROUTES } from '../../iam/contract/organizations'
import { PASSKEY_ROUTES } from '../../iam/contract/passkeys'
import { SECOND_FACTOR_ROUTES } from '../../iam/contract/second-factor'
import { SERVICE_ROUTES } from '../../iam/contract/service'
import { covers, listFiles, routeFiles as listRouteFiles } from '../helpers/route-files'

const CONTRACT_DIR = join(import.meta.dirname, '../../iam/contract')
const AREAS = [AUTH_ROUTES, ACCOUNT_ACTION_ROUTES, GATEWAY_AUTH_ROUTES, API_TOKEN_ROUTES, SERVICE_ROUTES, ACCOUNT_SECURITY_ROUTES, SECOND_FACTOR_ROUTES, PASSKEY_ROUTES, OIDC_ROUTES, ORGANIZATION_ROUTES, ADMIN_ROUTES, ACCOUNT_DELETION_ROUTES]
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
