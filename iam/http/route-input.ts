/**
 * A route's input parsed with its route-table entry's schemas (iam/contract/), so a handler never
 * keeps its own copy. One part at a time: each route keeps its order of checks (device, XSS,
 * limiters) between reading its link query and its body.
 */
import { getQuery, getRouterParams, type H3Event } from 'h3'
import type { z } from 'zod'
import type { RouteContract } from '../contract/define'
import { refusedFields } from '../contract/field-issues'
import { authFail } from './auth'
import { getJsonBody } from './request'
import { failEnvelope, httpFail } from './respond'

export type InputPart = 'params' | 'query' | 'body'

/** The parsed type of one part of an entry; `never` when the entry declares no schema for it. */
export type RouteInput<R extends RouteContract, P extends InputPart> = R[P] extends z.ZodType ? z.infer<R[P]> : never

/** What a route answers for input its schema refuses (`input`: the part as it was sent). */
export type InvalidInput = (error: z.ZodError, input: unknown) => never

/** The route's own 400: `{ ok: false, date, reason: "Bad Request" }` or `{ ok: false, date, error, fields, fieldIssues }` (iam/contract/field-issues.ts). */
function invalidFor(route: RouteContract): InvalidInput {
  if (route.request.kind === 'json' && route.request.invalid === 'reason') return () => httpFail(400, failEnvelope('Bad Request', 'bad_request'))
  return (error, input) => authFail(400, 'validation_failed', 'Validation failed', refusedFields(error, input, 'body'))
}

function rawPart(event: H3Event, part: InputPart): unknown {
  if (part === 'body') return getJsonBody(event)
  if (part === 'query') return getQuery(event)
  return getRouterParams(event, { decode: true })
}

/**
 * Parses `part` of the request with `route`'s schema. A refusal ends the request with `invalid`
 * (default: the route's 400 shape from its request rule).
 */
export function readRouteInput<R extends RouteContract, P extends InputPart>(
  event: H3Event,
  route: R,
  part: P,
  invalid: InvalidInput = invalidFor(route),
): RouteInput<R, P> {
  const schema = route[part]
  if (!schema) throw new Error(`readRouteInput: ${route.method} ${route.path} declares no ${part} schema`)
  const raw = rawPart(event, part)
  const parsed = schema.safeParse(raw)
  if (!parsed.success) return invalid(parsed.error, raw)
  return parsed.data as RouteInput<R, P>
}
