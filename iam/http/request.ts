/**
 * What the platform middleware resolved for a request: its id, the client IP and the JSON body.
 * Routes read them here instead of touching headers, sockets or the body stream themselves.
 */
import { randomUUID } from 'node:crypto'
import { setResponseHeader, type H3Event } from 'h3'
import type { RouteRule } from '../contract/route-rules'

declare module 'h3' {
  interface H3EventContext {
    /** set by middleware/10.request-context.ts */
    requestId?: string
    /** set by middleware/10.request-context.ts: normalised, proxy-resolved (docs/configuration.md, service.proxy) */
    clientIp?: string
    /** set by middleware/10.request-context.ts, applied by 30.request-rules.ts: the route's rule (undefined = not in the table) */
    routeRule?: RouteRule
    /** set by middleware/30.request-rules.ts for JSON routes: the parsed, checked body */
    jsonBody?: { value: unknown }
    /** set by recordStatusBeforeError: the response status when a handler threw */
    statusBeforeError?: number
  }
}

/** The request id (echoed `X-Request-Id` or generated); also on the response. */
export function getRequestId(event: H3Event): string {
  let id = event.context.requestId
  if (!id) {
    // Only reached when an error happened before middleware 10 ran (e.g. during boot).
    id = randomUUID()
    event.context.requestId = id
    if (!event.node.res.headersSent) setResponseHeader(event, 'X-Request-Id', id)
  }
  return id
}

/**
 * One request header by its lower-case name, as h3's getRequestHeader answers it (repeated values
 * joined with ", "), without the copy of every header h3 makes on each call: the hot paths read
 * several headers per request.
 */
export function requestHeader(event: H3Event, lowerCaseName: string): string | undefined {
  const value = event.node.req.headers[lowerCaseName]
  return Array.isArray(value) ? value.filter(Boolean).join(', ') : value
}

/** The resolved client IP (IPv4-mapped addresses normalised). */
export function getClientIp(event: H3Event): string {
  const ip = event.context.clientIp
  if (!ip) throw new Error('getClientIp: the client IP is resolved by middleware/10.request-context.ts, which did not run')
  return ip
}

/**
 * The JSON body parsed and checked by middleware/30.request-rules.ts (an object, within the size
 * limit). `undefined` for routes that take no JSON body (GET, cookie-only). A POST/PUT/PATCH
 * route missing from iam/lib/route-rules.ts is a bug: it throws, so it is found in the first test.
 */
export function getJsonBody<T = unknown>(event: H3Event): T {
  const parsed = event.context.jsonBody
  if (parsed) return parsed.value as T
  const rule = event.context.routeRule
  if (rule || event.method === 'GET' || event.method === 'HEAD') return undefined as T
  throw new Error(`getJsonBody: ${event.method} ${event.path.split('?')[0]} is not declared in iam/lib/route-rules.ts`)
}

/**
 * Remembers the status a handler set before it threw: h3 overwrites it with the error's status
 * (500 for a plain Error) before the final handler runs, and an unhandled error keeps a status
 * the handler had already set when it is above 415 (iam/error.ts). Called by plugins/01.error-status.ts as the error leaves
 * the app, so requests that do not fail pay nothing (watching every status change with an
 * accessor on the response puts node's response object into its slow property mode, a cost on
 * every request: docs/performance.md, "Per-request middleware").
 */
export function recordStatusBeforeError(event: H3Event): void {
  event.context.statusBeforeError = event.node.res.statusCode
}

/** The response status before h3 replaced it with the error's (see recordStatusBeforeError). */
export function statusBeforeError(event: H3Event): number {
  return event.context.statusBeforeError ?? event.node.res.statusCode
}
