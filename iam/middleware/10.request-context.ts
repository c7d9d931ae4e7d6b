/**
 * Request id and client IP for every request, and one structured log line when it ends.
 *
 * - Request id: a sane `X-Request-Id` from the caller (the gateway sends its HMAC nonce there) is
 *   kept so one id follows the request across services; anything else is replaced. Always echoed.
 * - Client IP: see lib/ip.ts resolveClientIp. Unresolvable => 403 plain text
 *   `Forbidden` (no rule keyed by address could hold for such a request).
 * - The log line carries no query string (magic-link tokens travel there) and no headers; with
 *   tracing on, the request's `trace_id` and `span_id` (shared/tracing.ts).
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { defineEventHandler, type H3Event } from 'h3'
import { useIam } from '../context'
import { httpFailText } from '../http/respond'
import { resolveClientIp } from '../../shared/ip'
import type { LogFields } from '../../shared/log'
import { useIamMetrics } from '../lib/metrics'
import { findRouteRule } from '../contract/route-rules'
import { traceLogFields, tracingActive } from '../../shared/tracing'

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/**
 * The metrics label of a request: the table's path (known even when a middleware answered before
 * the router ran), else the router's matched template, else one label for every unknown path, so
 * a scan of random URLs cannot create a series per path.
 */
function routeTemplate(event: H3Event): string {
  return event.context.routeRule?.path ?? event.context.matchedRoute?.path ?? 'unmatched'
}

const metrics = useIamMetrics()

export default defineEventHandler((event) => {
  const started = performance.now()
  const { config, log } = useIam()
  const { req, res } = event.node
  // read from the raw headers: h3's getRequestHeader copies every header of the request per call.
  // Node joins a repeated X-Request-Id into one string, which the pattern refuses.
  const given = req.headers['x-request-id']
  const requestId = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID()
  event.context.requestId = requestId
  res.setHeader('X-Request-Id', requestId)
  // looked up once here; middleware 20 and 30 and the metrics label read it
  event.context.routeRule = findRouteRule(event.method, event.path)
  // read now, inside the request's span (plugins/00.tracing.ts): the 'close' listener runs outside it
  const traced = tracingActive ? traceLogFields() : undefined

  res.once('close', () => {
    const route = routeTemplate(event)
    const elapsedMs = performance.now() - started
    const status = res.statusCode
    metrics.observeRequest({ method: req.method ?? 'GET', route, status, seconds: elapsedMs / 1000 })
    // the OpenID Provider's mount rewrites req.url (routes/oidc) and keeps the received one in originalUrl
    const received = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/'
    const fields: LogFields = { requestId, method: req.method, path: received.split('?')[0], route, status, durationMs: Math.round(elapsedMs * 10) / 10 }
    if (event.context.clientIp) fields.ip = event.context.clientIp
    if (!res.writableFinished) fields.aborted = true
    if (traced) Object.assign(fields, traced)
    log.info('request', fields)
  })

  const clientIp = resolveClientIp({
    socketIp: req.socket?.remoteAddress,
    forwardedFor: req.headers['x-forwarded-for'],
    trustProxy: config.service.proxy.trust,
    proxyIp: config.service.proxy.ipToTrust,
  })
  if (!clientIp) httpFailText(403, 'Forbidden')
  event.context.clientIp = clientIp
})
