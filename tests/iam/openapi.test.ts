import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { ROUTES } from '../../iam/contract/routes'
import { startIam, type IamServer } from '../helpers/iam-server'

// Starting IAM processes (PGlite boot, migrations) is slow on a loaded shared machine.
const START_TIMEOUT_MS = 180_000

const Hmac = { clientId: 'gateway', sharedSecret: 'test-shared-secret-0123456789-abcdefghij', maxClockSkew: 300_000, requireBodyDigest: true }
// Trusted proxy on loopback: X-Forwarded-For makes a request come from a non-local client.
const REMOTE = { 'x-forwarded-for': '203.0.113.9' }

type Operation = {
  operationId: string
  responses: Record<string, { description: string; content?: Record<string, unknown> }>
  security: Array<Record<string, string[]>>
  parameters?: Array<{ name: string; in: string; required: boolean }>
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> }

// The service's original routes, written out here rather than read from the table (so a route
// dropped from the table is noticed), the two routes of the bot detection component, and those
// the IAM added since.
const SPEC_ROUTES = [
  'post /signup',
  'post /login',
  'post /auth/OAuth/{providerName}',
  'post /auth/user/refresh-session',
  'post /auth/logout',
  'get /auth/verify-mfa',
  'post /auth/verify-mfa',
  'post /custom/mfa/{reason}',
  'get /auth/verify-custom-mfa',
  'post /auth/verify-custom-mfa',
  'post /update/email',
  'post /auth/forgot-password',
  'get /auth/reset-password',
  'post /auth/reset-password',
  'get /secret/data',
  'get /secret/accesstoken/metadata',
  'get /api/public/verify',
  'post /api/manage/new-token',
  'post /api/manage/revoke',
  'post /api/manage/metadata',
  'post /api/manage/rotate',
  'post /api/manage/ip-restriction-update',
  'post /api/manage/privilege-update',
  'get /api/manage/list-metadata',
  'post /api/manage/list-metadata',
  'get /operational/config',
  'get /health',
  'get /check',
  'get /.well-known/jwks.json',
]
const HMAC_SCHEMES = ['hmacClientId', 'hmacTimestamp', 'hmacSignature', 'hmacRequestId', 'hmacSignatureVersion']

let iam: IamServer
let doc: Document
beforeAll(async () => {
  iam = await startIam({ config: { service: { Hmac, proxy: { trust: true, ipToTrust: '127.0.0.1' } } } })
  const res = await fetch(`${iam.url}/openapi.json`, { headers: REMOTE })
  doc = (await res.json()) as Document
}, START_TIMEOUT_MS)
afterAll(() => iam?.stop())

function operations(): Array<[string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]): [string, Operation] => [`${method} ${path}`, op]))
}

describe('GET /openapi.json', () => {
  it('answers 200 application/json without HMAC headers from a remote client while HMAC is required', async () => {
    const res = await fetch(`${iam.url}/openapi.json`, { headers: REMOTE })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(((await res.json()) as Document).openapi).toBe('3.1.0')
  })
  it('leaves HMAC on for every other route: unsigned requests there are still 401', async () => {
    for (const path of ['/operational/config', '/health', '/.well-known/jwks.json', '/openapi.json/x']) {
      const res = await fetch(`${iam.url}${path}`, { headers: REMOTE })
      expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 401, body: { reason: 'Missing HMAC headers', code: 'hmac_invalid' } })
    }
  })
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    expect(() => validator.resolveRefs()).not.toThrow()
  })
  it('names every route of the table once, under its id', () => {
    const expected = Object.entries(ROUTES as Record<string, RouteContract>)
      .map(([id, route]) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')} ${id}`)
      .sort()
    expect(operations().map(([key, op]) => `${key} ${op.operationId}`).sort()).toEqual(expected)
  })
  it("names every route of the service, /check and /.well-known/jwks.json", () => {
    const documented = new Set(operations().map(([key]) => key))
    expect(SPEC_ROUTES.filter((route) => !documented.has(route))).toEqual([])
  })
  it('gives every full-authentication route the 401 response and the bearer + session requirement', () => {
    const full = Object.entries(ROUTES as Record<string, RouteContract>).filter(([, route]) => route.auth === 'full')
    expect(full.length).toBeGreaterThan(10)
    const byId = new Map(operations().map(([, op]) => [op.operationId, op]))
    for (const [id] of full) {
      const op = byId.get(id)
      expect(op?.responses['401'], id).toBeDefined()
      expect(op?.security, id).toEqual([expect.objectContaining({ bearer: [], session: [] })])
    }
  })
  it('requires the HMAC headers on every route but the unsigned operational ones (/openapi.json, /health/ready, /metrics), and the API key on /api/public/verify', () => {
    const unsigned = ['get /openapi.json', 'get /health/ready', 'get /metrics']
    for (const [key, op] of operations()) {
      const schemes = Object.keys(op.security[0] ?? {})
      if (unsigned.includes(key)) expect(schemes, key).not.toEqual(expect.arrayContaining(HMAC_SCHEMES))
      else expect(schemes, key).toEqual(expect.arrayContaining(HMAC_SCHEMES))
    }
    expect(Object.keys(doc.paths['/api/public/verify']?.get?.security[0] ?? {})).toContain('apiKey')
  })
  it('declares path parameters as required', () => {
    const op = doc.paths['/custom/mfa/{reason}']?.post
    expect(op?.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'reason', in: 'path', required: true })]))
  })
})
