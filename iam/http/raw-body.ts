/**
 * The request body bytes, read once and never beyond a bound. Two middlewares need them: the HMAC
 * check (a version 2 signature covers the body digest) and the JSON rules. The first to ask reads
 * the stream; the second gets the same bytes from the event, so the body is neither read twice
 * nor read without a limit.
 */
import type { H3Event, H3EventContext } from 'h3'
import { readBodyWithin } from '../../shared/read-bounded'
import { httpFail } from './respond'

declare module 'h3' {
  interface H3EventContext {
    /**
     * set by readRawBody: the bytes read (or 'too-large') and the bound they were read under;
     * `closing` once a refused body is too large to drop (shared/read-bounded.ts dropRest)
     */
    rawBody?: { limitBytes: number; result: Promise<Buffer | 'too-large'>; closing?: boolean }
  }
}

/**
 * The body, at most `limitBytes`: 'too-large' when a declared Content-Length exceeds the bound
 * (nothing is kept) or when one byte more arrives (a chunked body has no declared length). The
 * rest of a refused body is dropped as it arrives, within a bound, so the client can read the 413
 * (shared/read-bounded.ts dropRest). Memoised per request; every caller passes the route's own limit.
 */
export function readRawBody(event: H3Event, limitBytes: number): Promise<Buffer | 'too-large'> {
  const kept = event.context.rawBody
  if (kept) {
    if (kept.limitBytes !== limitBytes) throw new Error('readRawBody: one request read under two limits')
    return kept.result
  }
  const entry: NonNullable<H3EventContext['rawBody']> = {
    limitBytes,
    result: readBodyWithin(event.node.req, event.node.res, limitBytes).then((body) => {
      if (body !== 'close') return body
      entry.closing = true
      return 'too-large'
    }),
  }
  event.context.rawBody = entry
  return entry.result
}

/** The headers of a 413: `Connection: close` when the refused body is too large to drop. */
export function refusalHeaders(event: H3Event): Record<string, string> {
  return event.context.rawBody?.closing ? { connection: 'close' } : {}
}

/** 413, with the route's `message` when it has one (iam/contract/define.ts `tooLarge`). */
export function failTooLarge(event: H3Event, message?: string): never {
  return httpFail(413, { error: 'Payload too large', code: 'payload_too_large', ...(message ? { message } : {}) }, refusalHeaders(event))
}
