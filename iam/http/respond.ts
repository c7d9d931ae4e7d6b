/**
 * Early exits and the result envelope (`{ ok, date, data | reason }`). Every route and middleware ends a request with a
 * known status through `httpFail`; the final handler (iam/error.ts) renders exactly what was given.
 */
import { createError, isError } from 'h3'
import type { ErrorCode } from '../contract/error-codes'

/** The body of any unmatched route (its public spelling kept, clients may match it), with its code. */
export const NOT_FOUND_BODY = Object.freeze({ error: "The page you are looking for doesn't exists", code: 'not_found' satisfies ErrorCode })

/**
 * A JSON failure body: whatever the route's documented shape, it carries `code` (contract/error-codes.ts), the
 * one member a program decides on; a typo in a code fails the typecheck.
 */
export type FailureBody = { readonly code: ErrorCode } & Readonly<Record<string, unknown>>

const MARK = 'iam:http-fail'

/** What an httpFail error carries to the final handler. */
export interface HttpFailure {
  status: number
  /** JSON-rendered, or sent as is when `text` is true */
  body: unknown
  text: boolean
  headers: Record<string, string>
}

type Marked = { [MARK]: true; failure: HttpFailure }

function raise(failure: HttpFailure): never {
  const data: Marked = { [MARK]: true, failure }
  // statusMessage stays generic: h3 may print it, the body is ours alone.
  throw createError({ statusCode: failure.status, statusMessage: 'iam response', data })
}

/**
 * Ends the request with `status` and exactly `body` (JSON, with its `code`) plus `headers`.
 * Thrown, so it works from any depth of a route or middleware chain.
 */
export function httpFail(status: number, body: FailureBody, headers: Record<string, string> = {}): never {
  return raise({ status, body, text: false, headers })
}

/** Like httpFail with a plain text body (403 `Forbidden` for a client IP that cannot be resolved, shared/ip.ts). */
export function httpFailText(status: number, text: string, headers: Record<string, string> = {}): never {
  return raise({ status, body: text, text: true, headers })
}

/** 404 with the unmatched-route body (NOT_FOUND_BODY). */
export function notFound(): never {
  return httpFail(404, NOT_FOUND_BODY)
}

/** The failure an error carries when it came from httpFail; undefined for anything else. */
export function getHttpFailure(error: unknown): HttpFailure | undefined {
  if (!isError(error)) return undefined
  const data: unknown = error.data
  if (data && typeof data === 'object' && MARK in data) return (data as Marked).failure
  return undefined
}

/** `{ ok: true, date, data }`: the result envelope of the IAM's JSON successes (`date` the answer's ISO 8601 time). */
export function okEnvelope<T>(data: T): { ok: true; date: string; data: T } {
  return { ok: true, date: new Date().toISOString(), data }
}

/**
 * A success body with `warnings` beside `ok` when there are any: stable codes of what the person
 * should still hear about an accepted request (`breach_check_skipped`: the new password could not
 * be checked against known breaches, password-service.ts). Absent when empty, so bodies stay as
 * the route's contract entry documents them in the common case.
 */
export function withWarnings<T extends object>(body: T, warnings: readonly string[]): T & { warnings?: string[] } {
  return warnings.length > 0 ? { ...body, warnings: [...warnings] } : body
}

/** `{ ok: false, date, reason, code }`: the result envelope of a failure, with the reason's code (docs/errors.md). */
export function failEnvelope<R extends string, C extends ErrorCode>(reason: R, code: C): { ok: false; date: string; reason: R; code: C } {
  return { ok: false, date: new Date().toISOString(), reason, code }
}
