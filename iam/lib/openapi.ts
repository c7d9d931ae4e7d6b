/**
 * The IAM's OpenAPI 3.1 document, generated from the route table: one operation
 * per entry (operationId = route id), its parameters, request body and documented responses from
 * the entry's zod schemas, and its security from the entry's `auth`, `apiKey` and `hmac`.
 *
 * Pure: no h3, no config. It sits beside the table, not in it, because it reads the HMAC header
 * names from iam/client/hmac.ts (iam/contract imports only zod and lib/text). The document
 * describes every deployment, so the HMAC headers are listed on every route that verifies them
 * when service.Hmac is configured.
 */
import { HMAC_HEADERS } from '../client/hmac'
import { DEFAULT_PURPOSES, type AuthRule, type ResponseContract, type RouteContract } from '../contract/define'
import { ERROR_CODES } from '../contract/error-codes'
import { documentedResponses } from '../contract/responses'
import { PICTURE_TYPES } from '../contract/profile-picture'
import { ROUTES } from '../contract/routes'
import { toOpenApiSchema, type JsonSchema } from './openapi-schema'

export type OpenApiDocument = {
  openapi: '3.1.0'
  info: { title: string; version: string; description: string }
  paths: Record<string, Record<string, JsonSchema>>
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> }
  /** every failure code with its meaning (iam/contract/error-codes.ts, docs/errors.md) */
  'x-error-codes': Record<string, string>
}

/** The contract's version: bump it when a route changes in a way clients notice (1.1: failure codes). */
const CONTRACT_VERSION = '1.1.0'

const HMAC_V3 = [
  'String to sign (version 3): the lines `v3`, client id, timestamp, METHOD, request target (path + query as sent),',
  'request id, purpose, hex SHA-256 of the body bytes (of the empty string without a body), then the hex SHA-256 of the',
  '`Cookie`, `Authorization`, `X-Forwarded-For` and `x-api-key` header values (empty when absent), joined by `\\n`.',
  'Version 2 is the same without the purpose line (tag `v2`).',
  'X-Signature is the lowercase hex HMAC-SHA256 of it under the shared secret.',
].join(' ')

/** The six headers of a version 3 signature, one scheme each: a request carries all of them. */
const HMAC_SCHEMES: Record<string, { header: string; description: string }> = {
  hmacClientId: { header: HMAC_HEADERS.clientId, description: 'The gateway client id (service.Hmac.clientId).' },
  hmacTimestamp: { header: HMAC_HEADERS.timestamp, description: 'Milliseconds since the epoch; within service.Hmac.maxClockSkew of the IAM clock.' },
  hmacSignature: { header: HMAC_HEADERS.signature, description: HMAC_V3 },
  hmacRequestId: { header: HMAC_HEADERS.requestId, description: 'A one-time nonce, [A-Za-z0-9._-]{1,128}; a replay is refused by every instance.' },
  hmacSignatureVersion: { header: HMAC_HEADERS.version, description: '`3` (version 2 names no purpose; version 1, the original scheme, covers neither body nor credentials).' },
  hmacSignaturePurpose: {
    header: HMAC_HEADERS.purpose,
    description: 'Why the request was signed: `bff`, `provider`, `oauth-callback` or `sso`. Each operation lists the purposes it accepts in `x-caller-purposes`; any other is 401 `Purpose not accepted`.',
  },
}

const SECURITY_SCHEMES: Record<string, JsonSchema> = {
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access token.' },
  session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The refresh token.' },
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A raw API token.' },
  ...Object.fromEntries(
    Object.entries(HMAC_SCHEMES).map(([name, { header, description }]) => [
      name,
      { type: 'apiKey', in: 'header', name: header, description: `HMAC request signing, required when the IAM has service.Hmac. ${description}` },
    ]),
  ),
}

const CREDENTIALS: Record<AuthRule, readonly string[]> = {
  full: ['bearer', 'session'],
  'bearer+session': ['bearer', 'session'],
  session: ['session'],
  none: [],
}

function security(route: RouteContract): Array<Record<string, string[]>> {
  const names = [...CREDENTIALS[route.auth], ...(route.apiKey ? ['apiKey'] : []), ...(route.hmac === false ? [] : Object.keys(HMAC_SCHEMES))]
  return [Object.fromEntries(names.map((name) => [name, []]))]
}

/** Path and query parameters from the entry's object schemas. */
function parameters(id: string, route: RouteContract, components: Record<string, JsonSchema>): JsonSchema[] {
  const out: JsonSchema[] = []
  for (const where of ['path', 'query'] as const) {
    const schema = where === 'path' ? route.params : route.query
    if (!schema) continue
    const json = toOpenApiSchema(schema, 'input', `${id}.${where}`, components)
    const properties = (json.properties ?? {}) as Record<string, JsonSchema>
    const required = new Set((json.required ?? []) as string[])
    for (const [name, property] of Object.entries(properties)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: property })
    }
  }
  // A path segment the entry has no schema for is still a required string parameter.
  for (const segment of route.path.split('/').filter((s) => s.startsWith(':'))) {
    const name = segment.slice(1)
    if (!out.some((p) => p.in === 'path' && p.name === name)) out.push({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } })
  }
  return out
}

function requestBody(id: string, route: RouteContract, components: Record<string, JsonSchema>): JsonSchema | undefined {
  if (route.request.kind === 'image') {
    const image = { type: 'string', format: 'binary' }
    return {
      required: true,
      description: 'The image bytes, at most profilePicture.maxBytes; the Content-Type must name the type the bytes show.',
      content: Object.fromEntries(PICTURE_TYPES.map((type) => [type, { schema: image }])),
    }
  }
  if (route.request.kind !== 'json') return undefined
  const schema = route.body ? toOpenApiSchema(route.body, 'input', `${id}.body`, components) : { type: 'object' }
  return {
    required: true,
    description: `A JSON object of at most ${route.request.limitBytes} bytes.`,
    content: { 'application/json': { schema } },
  }
}

/**
 * A failure's body schema narrowed to the codes its route declares for the status: the shared body
 * (its `code` any code of the vocabulary) and, beside it, `code` as the enum of these. A status
 * below 400 (the 202 of a pending MFA) keeps its schema: its success body has no code.
 */
function withCodes(schema: JsonSchema, status: number, codes: readonly string[]): JsonSchema {
  if (status < 400 || codes.length === 0) return schema
  return { allOf: [schema, { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: [...codes] } } }] }
}

/**
 * `x-codes`: the codes a response may carry, also where no enum says so (the 202 of a pending MFA).
 * Their meanings are in the document once (`x-error-codes`): a copy per response doubled its size.
 */
const codeList = (response: ResponseContract) => (response.codes?.length ? { 'x-codes': [...response.codes] } : {})

function responseObjects(id: string, route: RouteContract, components: Record<string, JsonSchema>): JsonSchema {
  const all = documentedResponses(route)
  const out: JsonSchema = {}
  for (const [status, response] of Object.entries(all)) {
    const codes = response.codes ?? []
    const schema = response.body ? withCodes(toOpenApiSchema(response.body, 'output', `${id}.${status}`, components), Number(status), codes) : undefined
    out[status] = { description: response.description, ...(schema ? { content: { 'application/json': { schema } } } : {}), ...codeList(response) }
  }
  // OpenAPI wants at least one response per operation.
  if (Object.keys(out).length === 0) out.default = { description: 'Not documented yet' }
  return out
}

function operation(id: string, route: RouteContract, components: Record<string, JsonSchema>): JsonSchema {
  const params = parameters(id, route, components)
  const body = requestBody(id, route, components)
  return {
    operationId: id,
    summary: route.summary,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: responseObjects(id, route, components),
    security: security(route),
    ...(route.hmac === false ? {} : { 'x-caller-purposes': [...(route.purposes ?? DEFAULT_PURPOSES)] }),
  }
}

/** `/custom/mfa/:reason` -> `/custom/mfa/{reason}` */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
}

/** The document for a route table. */
export function buildOpenApiDocument(routes: Readonly<Record<string, RouteContract>>): OpenApiDocument {
  const components: Record<string, JsonSchema> = {}
  const paths: OpenApiDocument['paths'] = {}
  for (const [id, route] of Object.entries(routes)) {
    const path = openApiPath(route.path)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(id, route, components) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'IAM service',
      version: CONTRACT_VERSION,
      description:
        'Generated from the IAM route table (iam/contract). Bodies are JSON; times are ISO 8601 strings. Every failure body carries `code`, a stable snake_case code a program decides on (each response lists its codes in `x-codes`, and `x-error-codes` gives every code its meaning); the English sentence beside it (`error`, or `reason`) is for people and logs.',
    },
    paths,
    components: { schemas: components, securitySchemes: SECURITY_SCHEMES },
    'x-error-codes': { ...ERROR_CODES },
  }
}

let built: OpenApiDocument | undefined

/** The IAM's document, built once per process: the table is static. */
export function openApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument(ROUTES)
  return built
}
