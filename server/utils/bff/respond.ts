/**
 * How BFF routes answer the browser: JSON only, never a token. IAM answers are relayed with their
 * status (202 MFA and 429 Retry-After pass through as states the page shows), their Set-Cookie
 * headers, and bodies with `accessToken`/`accessIat` (and a sign-in's `restoreProof`) removed: each goes
 * into an HttpOnly cookie instead.
 */
import { defineEventHandler, setResponseHeader, setResponseStatus, type EventHandlerRequest, type H3Event } from 'h3'
import type { IamResponse } from '../../../iam/client/iam-client'
import { isErrorCode } from '../../../iam/contract/error-codes'
import { forwardSetCookies, readIssuedAccess, setAccessCookies } from './cookies'
import type { BffErrorCode } from './error-codes'

/** A finished answer thrown from deep inside a BFF helper (rendered by defineBffHandler). */
export class BffReply extends Error {
  override name = 'BffReply'
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(`BFF reply ${status}`)
  }
}

/**
 * A failure body of the BFF: whatever else it carries (`ok: false`, the sentence in `error`), it has
 * the `code` a page decides on (server/utils/bff/error-codes.ts); a typo in a code fails the typecheck.
 */
export type BffFailureBody = { readonly code: BffErrorCode } & Readonly<Record<string, unknown>>

/** Ends the request with `status` and JSON `body`, its `code` included. */
export function bffFail(status: number, body: BffFailureBody, headers?: Record<string, string>): never {
  throw new BffReply(status, body, headers)
}

/** Ends the request with a 303 to `location` (the no-JS forms' answer); `ok` says whether it succeeded. */
export function bffRedirect(location: string, ok: boolean): never {
  throw new BffReply(303, { ok }, { location })
}

/** defineEventHandler + rendering of BffReply + no-store (auth answers must never be cached). */
export function defineBffHandler<T>(handler: (event: H3Event<EventHandlerRequest>) => Promise<T>) {
  return defineEventHandler(async (event) => {
    setResponseHeader(event, 'cache-control', 'no-store')
    try {
      return await handler(event)
    } catch (error) {
      if (!(error instanceof BffReply)) throw error
      setResponseStatus(event, error.status)
      for (const [name, value] of Object.entries(error.headers)) setResponseHeader(event, name, value)
      return error.body
    }
  })
}

/** What the browser reads while the IAM cannot serve (unreachable, or its dependencies down). */
export const IAM_UNAVAILABLE_MESSAGE = 'The sign-in service is unavailable. Please try again in a moment.'

/** What the browser reads when the IAM failed (a 5xx other than 503, or an unreadable answer). */
export const SERVICE_FAILED_MESSAGE = 'The sign-in service failed. Please try again.'

// restoreProof: POST /login's proof for an account scheduled for deletion goes into a cookie (restore-proof.ts)
const SECRET_FIELDS = new Set(['accessToken', 'accessIat', 'refreshToken', 'restoreProof'])

/** A copy of `body` without token fields (top level and `data`). */
export function stripTokens(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    if (SECRET_FIELDS.has(key)) continue
    out[key] = key === 'data' && value && typeof value === 'object' && !Array.isArray(value) ? stripTokens(value) : value
  }
  return out
}

/**
 * The `warnings` of an IAM success (stable codes such as `breach_check_skipped`, iam/http/respond.ts
 * withWarnings), kept only when they look like codes: the pages map them to their own sentences.
 */
export function warningsOf(body: unknown): string[] {
  const warnings = body && typeof body === 'object' ? (body as { warnings?: unknown }).warnings : undefined
  return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string' && /^[a-z_]{1,64}$/.test(w)) : []
}

/**
 * Relays an IAM answer: cookies forwarded, issued tokens moved into cookies, status kept, body
 * stripped. IAM 5xx bodies are replaced (they may carry internals); 429 and 503 keep Retry-After.
 */
export function relay(event: H3Event, res: IamResponse<unknown>): Record<string, unknown> {
  forwardSetCookies(event, res.setCookies)
  const issued = readIssuedAccess(res.body)
  if (issued && res.status < 300) setAccessCookies(event, issued)
  setResponseStatus(event, res.status)
  if (res.status === 429) {
    const retryAfter = res.headers.get('retry-after')
    const header: string = 'retry-after' // a seconds count or "permanent" (iam/http/rate-limit.ts)
    if (retryAfter) setResponseHeader(event, header, retryAfter)
    const retry = (res.body as { retry?: unknown } | null)?.retry ?? retryAfter
    // the IAM's own sentence and code when it has them (a locked code entry says why and for how long)
    const { message, code } = (res.body ?? {}) as { message?: unknown; code?: unknown }
    return { ok: false, error: 'Too many requests', code: isErrorCode(code) ? code : 'rate_limited', retry, ...(typeof message === 'string' ? { message } : {}) }
  }
  if (res.status === 503) {
    // the IAM's database or shared store is unreachable: a wait, not a failure
    const retryAfter = res.headers.get('retry-after')
    if (retryAfter && /^\d+$/.test(retryAfter)) setResponseHeader(event, 'retry-after', Number(retryAfter))
    return { ok: false, error: IAM_UNAVAILABLE_MESSAGE, code: 'service_unavailable' }
  }
  if (res.status >= 500) return { ok: false, error: SERVICE_FAILED_MESSAGE, code: 'service_failed' }
  const body = stripTokens(res.body)
  if (res.status === 202) return { ok: false, mfa: true, message: body.message ?? 'A login link has been sent to your email.', code: 'mfa_required' }
  if (issued) {
    const warnings = warningsOf(res.body)
    return { ok: true, date: body.date ?? new Date().toISOString(), signedIn: true, ...(warnings.length ? { warnings } : {}) }
  }
  return body
}
