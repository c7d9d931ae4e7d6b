/**
 * The pages' one way to call the BFF: same-origin `fetch` with the `X-CSRF: 1` header every unsafe
 * BFF route requires. Never throws for HTTP statuses: 202 (MFA pending) and 429 (rate limited) are
 * states the page shows, so the caller gets `{ status, body }` and `describeFailure` for the message.
 */
import type { BffErrorCode } from '../server/utils/bff/error-codes'
import { sessionEndedMessage } from './session-ended'
export interface BffBody {
  ok?: boolean
  /**
   * what happened, for the page to decide on (the IAM's codes relayed, and the gateway's own:
   * server/utils/bff/error-codes.ts); `error`, `reason` and `message` are sentences to show, never
   * to compare (tests/unit/no-message-comparisons.test.ts)
   */
  code?: BffErrorCode
  error?: string
  reason?: string
  message?: string
  mfa?: boolean
  signedOut?: boolean
  retry?: number | string
  fields?: Record<string, string>
  data?: unknown
  [key: string]: unknown
}

export interface BffResult<T extends BffBody = BffBody> {
  status: number
  body: T
}

/** Calls a BFF route; status 0 means the network failed. */
export async function bffFetch<T extends BffBody = BffBody>(path: string, options: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<BffResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-csrf': '1' }
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  try {
    const res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      cache: 'no-store',
    })
    const text = await res.text()
    let body: unknown = {}
    try {
      body = text ? JSON.parse(text) : {}
    } catch {
      body = {}
    }
    return { status: res.status, body: (body && typeof body === 'object' ? body : {}) as T }
  } catch {
    return { status: 0, body: { ok: false, error: 'Could not reach the server. Check your connection and try again.' } as T }
  }
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`

/**
 * A wait of `seconds` as a person reads it: seconds under a minute, else whole minutes (rounded up,
 * so the person never comes back too early), and hours from two hours on.
 */
export function waitInWords(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds))
  if (s < 60) return plural(s, 'second')
  const minutes = Math.ceil(s / 60)
  if (minutes < 120) return plural(minutes, 'minute')
  return plural(Math.ceil(minutes / 60), 'hour')
}

/** A sentence for the user about a failed call (rate limit with its wait, MFA notice, or the server's error). */
export function describeFailure(result: BffResult): string {
  const { status, body } = result
  if (status === 429) {
    // the IAM's own sentence when it has one: a locked code entry says why and for how long
    // (iam/http/second-factor.ts failCodesLocked), which "too many attempts" alone does not
    if (typeof body.message === 'string' && body.message) return body.message
    // a seconds count, as the body's number or as the Retry-After header's digits
    const retry = typeof body.retry === 'string' && /^\d+$/.test(body.retry) ? Number(body.retry) : body.retry
    return typeof retry === 'number'
      ? `Too many attempts. Try again in ${waitInWords(retry)}.`
      : 'Too many attempts from this network. Try again later or contact support.'
  }
  if (status === 202 && body.mfa) return body.message ?? 'A sign-in link has been sent to your email. Open it to continue.'
  if (body.signedOut) return sessionEndedMessage(body.ended)
  if (status === 0) return body.error ?? 'Could not reach the server.'
  if (status >= 500) return 'Something went wrong on our side. Please try again.'
  // The IAM's generic 400 title ("Validation failed") is for programs; a person reads what was wrong.
  const fieldMessages = Object.values(fieldErrorsOf(result))
  if (status === 400 && fieldMessages.length) return fieldMessages.join(' ')
  // a validation failure naming no field the page can show: its title is for programs
  if (status === 400 && body.code === 'validation_failed' && body.fields !== undefined) return 'Please check the form and try again.'
  return body.error ?? body.reason ?? 'The request could not be completed.'
}

/**
 * The banner of a form whose fields show their own messages (`shownFields`: the fields it has): none
 * when every field message of a 400 has its field on the form, so the person reads the problem once,
 * beside the field; otherwise the messages that have no field here, or `describeFailure`.
 */
export function formFailure(result: BffResult, shownFields: readonly string[]): string | null {
  const fields = fieldErrorsOf(result)
  const keys = Object.keys(fields)
  if (result.status !== 400 || keys.length === 0) return describeFailure(result)
  const elsewhere = keys.filter((key) => !shownFields.includes(key))
  return elsewhere.length ? elsewhere.map((key) => fields[key]).join(' ') : null
}

/** Field messages of a 400 answer (`fields`), as a plain record. */
export function fieldErrorsOf(result: BffResult): Record<string, string> {
  const fields = result.body.fields
  return fields && typeof fields === 'object' ? { ...fields } : {}
}
