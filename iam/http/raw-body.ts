/**
 * The request body bytes, read once and never beyond a bound. Two middlewares need them: the HMAC
 * check (a version 2 signature covers the body digest) and the JSON rules. The first to ask reads
 * the stream; the second gets the same bytes from the event, so the body is neither read twice
 * nor read without a limit.
 */
import type { H3Event } from 'h3'
import { readBounded } from '../../shared/read-bounded'
import { requestHeader } from './request'
import { httpFail } from './respond'

declare module 'h3' {
  interface H3EventContext {
    /** set by readRawBody: the bytes read (or 'too-large') and the bound they were read under */
    rawBody?: { limitBytes: number; result: Promise<Buffer | 'too-large'> }
  }
}

/**
 * The body, at most `limitBytes`: 'too-large' when a declared Content-Length exceeds the bound
 * (nothing is read) or when one byte more arrives (a chunked body has no declared length).
 * Memoised per request; every caller passes the route's own limit.
 */
export function readRawBody(event: H3Event, limitBytes: number): Promise<Buffer | 'too-large'> {
  const kept = event.context.rawBody
  if (kept) {
    if (kept.limitBytes !== limitBytes) throw new Error('readRawBody: one request read under two limits')
    return kept.result
  }
  const declared = requestHeader(event, 'content-length')
  const result: Promise<Buffer | 'too-large'> =
    declared !== undefined && Number(declared) > limitBytes ? Promise.resolve('too-large') : readBounded(event.node.req, limitBytes)
  event.context.rawBody = { limitBytes, result }
  return result
}

/**
 * 413, with the route's `message` when it has one (iam/contract/define.ts `tooLarge`); the rest of
 * an oversized body stays unread: closing the connection is cheaper than draining it.
 */
export function failTooLarge(message?: string): never {
  return httpFail(413, { error: 'Payload too large', code: 'payload_too_large', ...(message ? { message } : {}) }, { connection: 'close' })
}
