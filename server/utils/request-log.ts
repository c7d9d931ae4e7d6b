/**
 * One log line per request, like the IAM's (iam/middleware/10.request-context.ts): a request id (a
 * sane `X-Request-Id` from the caller, else a new one, echoed in the response) and the route
 * template (the metrics' label, never the raw path with its ids). No query string (OAuth codes and
 * states travel there) and no headers. With tracing on, the request's `trace_id` and `span_id`
 * (shared/tracing.ts). Started by server/middleware/05.request-log.ts, and by the gateway's direct
 * lane (server/utils/direct-lane.ts) for the requests it answers.
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { getRequestHeader, setResponseHeader, type H3Event } from 'h3'
import { traceLogFields, tracingActive } from '../../shared/tracing'
import { useGatewayLog } from './log'

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/** Names the request (event.context.requestId, the X-Request-Id answer header) and logs it once answered. */
export function logRequest(event: H3Event): void {
  const started = performance.now()
  const given = getRequestHeader(event, 'x-request-id')
  const requestId = given && SANE_REQUEST_ID.test(given) ? given : randomUUID()
  event.context.requestId = requestId
  setResponseHeader(event, 'X-Request-Id', requestId)
  const { req, res } = event.node
  // read now, inside the request's span: the 'close' listener runs outside it
  const traced = tracingActive ? traceLogFields() : undefined
  res.once('close', () => {
    useGatewayLog().info('request', {
      requestId,
      method: req.method,
      path: (req.url ?? '/').split('?')[0],
      route: event.context.matchedRoute?.path ?? 'unmatched',
      status: res.statusCode,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(res.writableFinished ? {} : { aborted: true }),
      ...traced,
    })
  })
}
