/**
 * Every request body is buffered here, bounded, before the CSRF check (which reads form bodies)
 * or any route reads it (server/utils/request-body.ts). An oversized body is 413: JSON
 * `{ ok: false, error, code }` like the BFF's other refusals, or `{ error: 'payload_too_large' }` like
 * the OAuth callback's other status answers. The connection is closed: the rest of the body stays
 * unread, which is cheaper than draining it.
 */
import { defineEventHandler, setResponseHeader, setResponseHeaders, setResponseStatus } from 'h3'
import type { BffErrorCode } from '../utils/bff/error-codes'
import { answerStatus } from '../utils/oauth/respond'
import { bodyLimitFor, bufferBody, isCallbackPath } from '../utils/request-body'

export default defineEventHandler(async (event) => {
  if (await bufferBody(event, bodyLimitFor(event.path))) return
  setResponseHeader(event, 'connection', 'close')
  if (isCallbackPath(event.path)) return answerStatus(event, 413, 'payload_too_large')
  setResponseStatus(event, 413)
  setResponseHeaders(event, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  return { ok: false, error: 'Payload too large', code: 'payload_too_large' satisfies BffErrorCode }
})
