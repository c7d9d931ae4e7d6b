/**
 * The SCIM 2.0 service of an organization (RFC 7644), mounted at /scim/v2 outside the route table
 * (like the OpenID Provider: its own protocol, its own error shape, its own content type). Reached
 * only through the gateway's SCIM forwarder (server/utils/scim-forward.ts), whose signature names
 * the purpose `scim` and nothing else reaches here (middleware/20.hmac.ts).
 *
 * Order: the path's canonical form, the bearer token (401 with `WWW-Authenticate: Bearer`, RFC
 * 6750 section 3), then the body (content type, bound, JSON object, text rule), then the
 * resource. Every answer is `application/scim+json` with `no-store`; every failure is an RFC 7644
 * section 3.12 body. The features (features/enterprise/scim-*) answer with failure codes; the
 * status is picked here.
 */
import { setResponseHeader, setResponseStatus, type H3Event } from 'h3'
import { isForwardableTarget, splitTarget } from '../contract/request-path'
import { SCIM_BODY_LIMIT_BYTES, SCIM_MOUNT } from '../contract/scim-mount'
import type { IamContext } from '../context'
import { matchesFilter, pageOf, parseFilter } from '../features/enterprise/scim-filter'
import { createScimGroup, deleteScimGroup, getScimGroup, listScimGroups, patchScimGroup, replaceScimGroup } from '../features/enterprise/scim-groups'
import {
  errorBody,
  firstIssue,
  listResponse,
  MAX_RESULTS,
  patchInput,
  resourceTypes,
  schemas,
  serviceProviderConfig,
  type ScimBase,
  type ScimType,
} from '../features/enterprise/scim-schema'
import { authenticateScimToken, type ScimTenant } from '../features/enterprise/scim-tokens'
import { createScimUser, deleteScimUser, getScimUser, listScimUsers, patchScimUser, replaceScimUser, type ScimFailure } from '../features/enterprise/scim-users'
import { findRejectedText, isStorableText } from '../lib/text'
import type { ScimCall } from '../features/enterprise/scim-member-events'
import { readRawBody, refusalHeaders } from './raw-body'
import { getClientIp, requestHeader } from './request'

const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8'

/** What a failure code of the features answers with. */
const STATUS_OF: Record<ScimFailure['code'], number> = { not_found: 404, conflict: 409, bad_request: 400, precondition_failed: 412 }

/** A SCIM answer: a status, a body, and the headers beyond the content type. */
interface Answer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

const failure = (status: number, detail: string, scimType?: ScimType): Answer => ({ status, body: errorBody(status, detail, scimType) })
const fromFailure = (f: ScimFailure): Answer => failure(STATUS_OF[f.code], f.detail, f.scimType)

// fatal: invalid UTF-8 is malformed input (RFC 8259 section 8.1)
const decoder = new TextDecoder('utf-8', { fatal: true })
const reviver = (key: string, value: unknown) => (key === '__proto__' ? undefined : value)

/** RFC 7644 section 3.1: `application/scim+json`; `application/json` is taken too (section 8.1 lets a client send it). */
function isScimContentType(value: string | undefined): boolean {
  const type = value?.split(';')[0]?.trim().toLowerCase()
  return type === 'application/scim+json' || type === 'application/json'
}

/** The JSON object the request carries, or the answer that refuses it. */
async function readScimBody(event: H3Event): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; answer: Answer }> {
  if (!isScimContentType(requestHeader(event, 'content-type'))) return { ok: false, answer: failure(415, 'The body must be application/scim+json') }
  const encoding = requestHeader(event, 'content-encoding')
  if (encoding && encoding.toLowerCase() !== 'identity') return { ok: false, answer: failure(415, 'A compressed body is not taken') }
  const raw = await readRawBody(event, SCIM_BODY_LIMIT_BYTES)
  if (raw === 'too-large') return { ok: false, answer: { ...failure(413, `A body is at most ${SCIM_BODY_LIMIT_BYTES} bytes`), headers: refusalHeaders(event) } }
  let value: unknown
  try {
    value = JSON.parse(decoder.decode(raw), reviver)
  } catch {
    return { ok: false, answer: failure(400, 'The body is not JSON', 'invalidSyntax') }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, answer: failure(400, 'The body must be a JSON object', 'invalidSyntax') }
  const field = findRejectedText(value, isStorableText)
  if (field !== undefined) return { ok: false, answer: failure(400, `${field || 'body'}: a string holds a character that cannot be stored`, 'invalidValue') }
  return { ok: true, value: value as Record<string, unknown> }
}

/** A page of `resources` matching the request's `filter` (RFC 7644 sections 3.4.2.2 and 3.4.2.4). */
function listAnswer(resources: unknown[], query: URLSearchParams): Answer {
  const filterText = query.get('filter')
  let matching = resources
  if (filterText !== null) {
    const parsed = parseFilter(filterText)
    if (!parsed.ok) return failure(400, parsed.detail, 'invalidFilter')
    matching = resources.filter((r) => matchesFilter(r, parsed.filter))
  }
  const { startIndex, count } = pageOf({ startIndex: query.get('startIndex') ?? undefined, count: query.get('count') ?? undefined }, MAX_RESULTS)
  return { status: 200, body: listResponse(matching.slice(startIndex - 1, startIndex - 1 + count), matching.length, startIndex) }
}

const withLocation = (status: number, resource: { meta: { location: string; version?: string } }): Answer => ({
  status,
  body: resource,
  headers: { location: resource.meta.location, ...(resource.meta.version ? { etag: resource.meta.version } : {}) },
})

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; answer: Answer }

async function withBody(event: H3Event, then: (value: Record<string, unknown>) => Promise<Answer>): Promise<Answer> {
  const body: Parsed = await readScimBody(event)
  return body.ok ? then(body.value) : body.answer
}

async function withPatch(event: H3Event, then: (patch: ReturnType<typeof patchInput.parse>) => Promise<Answer>): Promise<Answer> {
  return withBody(event, async (value) => {
    const patch = patchInput.safeParse(value)
    return patch.success ? then(patch.data) : failure(400, firstIssue(patch.error), 'invalidSyntax')
  })
}

const METHOD_NOT_ALLOWED = failure(405, 'This method is not served on this resource')

/** The time of a write and the SCIM client's address: the security events of its changes carry both (features/enterprise/scim-member-events.ts). */
const callOf = (event: H3Event, ctx: IamContext): ScimCall => ({ now: ctx.now(), ip: getClientIp(event) })

async function usersAnswer(event: H3Event, ctx: IamContext, tenant: ScimTenant, base: ScimBase, id: string | undefined, query: URLSearchParams): Promise<Answer> {
  const call = callOf(event, ctx)
  const ifMatch = requestHeader(event, 'if-match')
  if (id === undefined) {
    if (event.method === 'GET') return listAnswer(await listScimUsers(ctx.db, tenant, base), query)
    if (event.method === 'POST') return withBody(event, async (v) => {
      const r = await createScimUser(ctx.db, tenant, v, base, call)
      return r.ok ? withLocation(201, r.user) : fromFailure(r)
    })
    return METHOD_NOT_ALLOWED
  }
  switch (event.method) {
    case 'GET': {
      const r = await getScimUser(ctx.db, tenant, id, base)
      return r.ok ? withLocation(200, r.user) : fromFailure(r)
    }
    case 'PUT':
      return withBody(event, async (v) => {
        const r = await replaceScimUser(ctx.db, tenant, id, v, base, call, ifMatch)
        return r.ok ? withLocation(200, r.user) : fromFailure(r)
      })
    case 'PATCH':
      return withPatch(event, async (p) => {
        const r = await patchScimUser(ctx.db, tenant, id, p, base, call, ifMatch)
        return r.ok ? withLocation(200, r.user) : fromFailure(r)
      })
    case 'DELETE': {
      const r = await deleteScimUser(ctx.db, tenant, id, call)
      return r.ok ? { status: 204 } : fromFailure(r)
    }
  }
  return METHOD_NOT_ALLOWED
}

async function groupsAnswer(event: H3Event, ctx: IamContext, tenant: ScimTenant, base: ScimBase, id: string | undefined, query: URLSearchParams): Promise<Answer> {
  const call = callOf(event, ctx)
  if (id === undefined) {
    if (event.method === 'GET') return listAnswer(await listScimGroups(ctx.db, tenant, base), query)
    if (event.method === 'POST') return withBody(event, async (v) => {
      const r = await createScimGroup(ctx.db, tenant, v, base, call)
      return r.ok ? withLocation(201, r.group) : fromFailure(r)
    })
    return METHOD_NOT_ALLOWED
  }
  switch (event.method) {
    case 'GET': {
      const r = await getScimGroup(ctx.db, tenant, id, base)
      return r.ok ? withLocation(200, r.group) : fromFailure(r)
    }
    case 'PUT':
      return withBody(event, async (v) => {
        const r = await replaceScimGroup(ctx.db, tenant, id, v, base, call)
        return r.ok ? withLocation(200, r.group) : fromFailure(r)
      })
    case 'PATCH':
      return withPatch(event, async (p) => {
        const r = await patchScimGroup(ctx.db, tenant, id, p, base, call)
        return r.ok ? withLocation(200, r.group) : fromFailure(r)
      })
    case 'DELETE': {
      const r = await deleteScimGroup(ctx.db, tenant, id, call)
      return r.ok ? { status: 204 } : fromFailure(r)
    }
  }
  return METHOD_NOT_ALLOWED
}

/** The discovery documents of RFC 7644 section 4 (the same for every organization). */
function discoveryAnswer(event: H3Event, base: ScimBase, segments: readonly string[], query: URLSearchParams): Answer | undefined {
  const [kind, id, ...rest] = segments
  if (rest.length > 0) return undefined
  if (event.method !== 'GET' && ['ServiceProviderConfig', 'ResourceTypes', 'Schemas'].includes(kind ?? '')) return METHOD_NOT_ALLOWED
  if (kind === 'ServiceProviderConfig' && id === undefined) return { status: 200, body: serviceProviderConfig(base) }
  const documents = kind === 'ResourceTypes' ? resourceTypes(base) : kind === 'Schemas' ? schemas(base) : undefined
  if (!documents) return undefined
  if (id === undefined) return listAnswer(documents, query)
  const one = documents.find((d) => d.id === decodeURIComponent(id))
  return one ? { status: 200, body: one } : failure(404, 'No such document')
}

/** Answers one request under the mount. */
async function scimAnswer(event: H3Event, ctx: IamContext): Promise<Answer> {
  const target = event.node.req.url ?? '/'
  // the gateway forwards only canonical paths under the mount (iam/contract/request-path.ts); the
  // rule is checked again where the path is taken apart
  if (!isForwardableTarget(target, SCIM_MOUNT)) return failure(400, 'Not a SCIM address')
  const tenant = await authenticateScimToken(ctx.db, requestHeader(event, 'authorization'), ctx.now())
  if (!tenant) {
    return { ...failure(401, 'A valid SCIM token of the organization is required (Authorization: Bearer)'), headers: { 'www-authenticate': 'Bearer realm="SCIM"' } }
  }
  const { path, query } = splitTarget(target)
  const segments = path.slice(SCIM_MOUNT.length).split('/').filter(Boolean)
  const params = new URLSearchParams(query)
  const base: ScimBase = { baseUrl: new URL(SCIM_MOUNT, ctx.config.magic_links.domain).toString() }
  const [kind, id, ...rest] = segments
  if (rest.length === 0 && kind === 'Users') return usersAnswer(event, ctx, tenant, base, id, params)
  if (rest.length === 0 && kind === 'Groups') return groupsAnswer(event, ctx, tenant, base, id, params)
  return discoveryAnswer(event, base, segments, params) ?? failure(404, 'No such SCIM resource')
}

/** The handler of /scim/v2/**: the answer written with its status and headers. */
export async function serveScim(event: H3Event, ctx: IamContext): Promise<string | null> {
  const answer = await scimAnswer(event, ctx)
  setResponseStatus(event, answer.status)
  setResponseHeader(event, 'cache-control', 'no-store')
  for (const [name, value] of Object.entries(answer.headers ?? {})) setResponseHeader(event, name, value)
  if (answer.body === undefined) return null
  setResponseHeader(event, 'content-type', SCIM_CONTENT_TYPE)
  return JSON.stringify(answer.body)
}
