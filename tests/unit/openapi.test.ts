import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineRoutes, json, noBody } from '../../iam/contract/define'
import { ERROR_CODES } from '../../iam/contract/error-codes'
import * as sharedResponses from '../../iam/contract/responses'
import { ROUTES } from '../../iam/contract/routes'
import { buildOpenApiDocument, openApiPath } from '../../iam/lib/openapi'

type Node = { name: string; children: Node[] }
const tree: z.ZodType<Node> = z.object({ name: z.string(), children: z.array(z.lazy(() => tree)) })
const Address = z.object({ city: z.string() }).meta({ id: 'Address' })

const table = defineRoutes({
  createThing: {
    method: 'POST',
    path: '/things/:kind',
    summary: 'Create a thing',
    auth: 'full',
    limiters: [],
    request: json(),
    params: z.object({ kind: z.string().regex(/^[a-z]{3,8}$/) }),
    query: z.object({ dryRun: z.enum(['1']).optional(), page: z.string() }),
    body: z.object({
      name: z.string().max(10),
      colour: z.string().default('red'),
      seen: z.date(),
      custom: z.custom<string>((v) => typeof v === 'string'),
      home: Address,
      work: Address,
      tree,
    }),
    responses: { 201: { description: 'Created', body: z.object({ ok: z.literal(true), at: z.date(), count: z.string().transform(Number) }) } },
  },
  open: { method: 'GET', path: '/open', summary: 'Open', auth: 'none', limiters: [], request: noBody, hmac: false, responses: {} },
})

/** Every `$ref` string anywhere in `node`. */
function refs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refs)
  if (node === null || typeof node !== 'object') return []
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refs(value)))
}

describe('OpenAPI generation from a route table', () => {
  const doc = buildOpenApiDocument(table)
  const op = doc.paths['/things/{kind}']?.post as Record<string, unknown>

  it('turns :param segments into {param}', () => {
    expect(openApiPath('/custom/mfa/:reason')).toBe('/custom/mfa/{reason}')
    expect(openApiPath('/a/:b/c/:d_e')).toBe('/a/{b}/c/{d_e}')
  })
  it('documents unrepresentable types instead of throwing (a date as an ISO string, a custom check as anything)', () => {
    const body = (op.requestBody as { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } }).content['application/json'].schema
    expect(body.properties.seen).toEqual({ type: 'string', format: 'date-time' })
    expect(body.properties.custom).toEqual({})
  })
  it('describes requests as clients send them: a field with a default is optional', () => {
    const body = (op.requestBody as { content: { 'application/json': { schema: { required: string[] } } } }).content['application/json'].schema
    expect(body.required).not.toContain('colour')
    expect(body.required).toContain('name')
  })
  it('takes path and query parameters from the params and query schemas', () => {
    expect(op.parameters).toEqual([
      { name: 'kind', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{3,8}$' } },
      { name: 'dryRun', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } },
      { name: 'page', in: 'query', required: true, schema: { type: 'string' } },
    ])
  })
  it('moves shared and recursive definitions to components so every $ref resolves in the document', () => {
    const all = refs(doc)
    expect(all.length).toBeGreaterThan(0)
    for (const ref of all) {
      expect(ref).toMatch(/^#\/components\/schemas\/[A-Za-z0-9._-]+$/)
      expect(doc.components.schemas[ref.slice('#/components/schemas/'.length)], ref).toBeDefined()
    }
    expect(doc.components.schemas.Address).toBeDefined()
  })
  it('holds each shared response body of iam/contract/responses.ts once, as a component named by its export name', () => {
    const schemas = Object.entries(sharedResponses as Record<string, unknown>).filter((entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType)
    expect(schemas.length).toBeGreaterThan(0)
    for (const [name, schema] of schemas) expect(z.globalRegistry.get(schema)?.id, name).toBe(name)
    const withShared = buildOpenApiDocument({ ...table, failing: { ...table.open, path: '/failing', responses: { 429: { description: 'Limited', body: sharedResponses.tooManyBody } } } })
    expect(withShared.paths['/failing']?.get?.responses).toMatchObject({ 429: { content: { 'application/json': { schema: { $ref: '#/components/schemas/tooManyBody' } } } } })
    expect(withShared.components.schemas.tooManyBody).toMatchObject({ type: 'object', required: ['error', 'code', 'retry'] })
  })
  it("adds the platform's answers (HMAC 401, unresolved client IP 403, 500, outage 503) to every route, the HMAC 401 only where HMAC applies", () => {
    expect(Object.keys(op.responses as object).sort()).toEqual(['201', '401', '403', '500', '503'])
    expect(Object.keys(doc.paths['/open']?.get?.responses as object).sort()).toEqual(['403', '500', '503'])
  })
  it('requires nothing on an HMAC-exempt route without authentication', () => {
    expect(doc.paths['/open']?.get?.security).toEqual([{}])
  })
  it('lists the signed purposes each signed operation accepts (bff when the entry names none), and none on an exempt one', () => {
    expect(op['x-caller-purposes']).toEqual(['bff'])
    expect(doc.paths['/open']?.get?.['x-caller-purposes']).toBeUndefined()
  })
  it('lists the codes of every failure in x-codes (the platform adds its own), and every code with its meaning once', () => {
    const responses = op.responses as Record<string, { 'x-codes'?: string[] }>
    expect(responses['401']?.['x-codes']).toEqual(['hmac_invalid', 'purpose_not_accepted'])
    expect(responses['503']?.['x-codes']).toEqual(['service_unavailable'])
    expect(responses['201']?.['x-codes']).toBeUndefined()
    expect(doc['x-error-codes']).toEqual(ERROR_CODES)
  })
  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>)
    expect(result.errors).toBeUndefined()
    expect(() => validator.resolveRefs()).not.toThrow()
  })
})

describe('failure codes in the IAM document', () => {
  const doc = buildOpenApiDocument(ROUTES)
  type Response = { content?: { 'application/json': { schema: Record<string, unknown> } }; 'x-codes'?: string[] }
  const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods)) as Array<{ operationId: string; responses: Record<string, Response> }>

  it("narrows each failure's `code` to the codes its route declares for the status, as an enum beside the shared body", () => {
    const refused = (doc.paths['/orgs/{orgId}']?.get as { responses: Record<string, Response> }).responses
    expect(refused['404']?.content?.['application/json'].schema).toEqual({
      allOf: [{ $ref: '#/components/schemas/errorFail' }, { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: ['org_not_found'] } } }],
    })
    expect(refused['404']?.['x-codes']).toEqual(['org_not_found'])
    expect(doc.components.schemas.errorCode).toMatchObject({ type: 'string', enum: Object.keys(ERROR_CODES) })
  })

  it('lists codes on every failure response that has a body, and only codes of the vocabulary', () => {
    const missing: string[] = []
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || !response.content) continue
        const listed = response['x-codes'] ?? []
        if (listed.length === 0) missing.push(`${operation.operationId} ${status}`)
        for (const code of listed) expect(Object.hasOwn(ERROR_CODES, code), `${operation.operationId} ${status} ${code}`).toBe(true)
      }
    }
    expect(missing).toEqual([])
  })

  it('keeps a success schema free of a required code where a code shares its status (the 202 of a pending MFA)', () => {
    const accepted = (doc.paths['/auth/delete-account']?.post as { responses: Record<string, Response> }).responses['202']
    expect(accepted?.['x-codes']).toEqual(['mfa_required'])
    expect(JSON.stringify(accepted?.content?.['application/json'].schema)).not.toContain('"required":["code"]')
  })

  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>)
    expect(result.errors).toBeUndefined()
  })
})
