/**
 * The final handler (docs/errors.md). Four cases:
 * - httpFail (iam/http/respond.ts): exactly the given status, body and headers;
 * - no route for this path and method: 404 with NOT_FOUND_BODY (`not_found`). A known path with
 *   another method is an unmatched route too (the router's 405 becomes 404): no answer tells which
 *   paths exist;
 * - PostgreSQL or Redis unreachable (lib/outage.ts): 503 `{ error: "Service unavailable", code:
 *   "service_unavailable" }` with Retry-After, logged at warn level without a stack;
 * - anything else is a bug or an infrastructure failure: the response status when a handler set
 *   one above 415 (a status the handler chose on purpose), else 500, with `{ error, code: "internal_error", requestId }`. The cause is logged at error
 *   level with the request id and stack, and never reaches the body.
 */
import { STATUS_CODES } from 'node:http'
import type { NitroErrorHandler } from 'nitropack/types'
import type { H3Error, H3Event } from 'h3'
import { send, setResponseHeader, setResponseStatus } from 'h3'
import type { ErrorCode } from './contract/error-codes'
import { useIam } from './context'
import { getHttpFailure, NOT_FOUND_BODY } from './http/respond'
import { getRequestId, statusBeforeError } from './http/request'
import type { LogFields } from '../shared/log'
import { isDependencyOutage, OUTAGE_RETRY_AFTER_SECONDS } from './lib/outage'

function respond(event: H3Event, status: number, body: string, contentType: string, headers: Record<string, string> = {}) {
  const res = event.node.res
  if (res.headersSent) {
    // A streamed response failed midway: nothing valid can follow, end it.
    if (!res.writableEnded) res.end()
    return
  }
  // The standard reason phrase: h3 had already put the error's own message in the status line.
  setResponseStatus(event, status, STATUS_CODES[status] ?? 'Error')
  for (const [name, value] of Object.entries(headers)) setResponseHeader(event, name, value)
  setResponseHeader(event, 'content-type', contentType)
  return send(event, body)
}

function log(level: 'error' | 'warn', msg: string, fields: LogFields): void {
  try {
    useIam().log[level](msg, fields)
  } catch {
    // Boot did not finish: the logger is not there yet.
    process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })}\n`)
  }
}
const logError = (msg: string, fields: LogFields) => log('error', msg, fields)
const logWarning = (msg: string, fields: LogFields) => log('warn', msg, fields)

export default (function errorHandler(error: H3Error, event: H3Event) {
  const failure = getHttpFailure(error)
  if (failure) {
    return failure.text
      ? respond(event, failure.status, String(failure.body), 'text/plain; charset=utf-8', failure.headers)
      : respond(event, failure.status, JSON.stringify(failure.body), 'application/json', failure.headers)
  }
  const requestId = getRequestId(event)
  if (!error.unhandled && (error.statusCode === 404 || error.statusCode === 405)) {
    return respond(event, 404, JSON.stringify(NOT_FOUND_BODY), 'application/json')
  }
  if (isDependencyOutage(error)) {
    // PostgreSQL or Redis unreachable: an answer the client can act on, not a 500.
    const cause = error.cause instanceof Error ? error.cause : error
    logWarning('dependency unavailable', { requestId, method: event.method, path: event.path.split('?')[0], error: { name: cause.name, message: cause.message } })
    return respond(event, 503, JSON.stringify({ error: 'Service unavailable', code: 'service_unavailable' satisfies ErrorCode }), 'application/json', {
      'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS),
    })
  }
  const current = statusBeforeError(event)
  let status: number
  if (error.unhandled) status = current > 415 && current < 600 ? current : 500
  else status = error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  const cause = error.cause instanceof Error ? error.cause : error
  if (status >= 500) {
    logError('unhandled error', {
      requestId,
      method: event.method,
      path: event.path.split('?')[0],
      status,
      error: { name: cause.name, message: cause.message, stack: cause.stack },
    })
  }
  // A deliberate 4xx from h3 itself (not httpFail): its reason phrase, nothing from the message.
  const phrase = status >= 500 ? 'Internal Server Error' : (STATUS_CODES[status] ?? 'Error')
  const code: ErrorCode = status >= 500 ? 'internal_error' : 'bad_request'
  return respond(event, status, JSON.stringify({ error: phrase, code, requestId }), 'application/json')
}) satisfies NitroErrorHandler
