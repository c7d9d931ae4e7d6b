/**
 * The pages' one way to call the BFF: same-origin `fetch` with the `X-CSRF: 1` header every unsafe
 * BFF route requires. Never throws for HTTP statuses: 202 (MFA pending) and 429 (rate limited) are
 * states the page shows, so the caller gets `{ status, body }`; `useFailureWords` (composables/failure-words.ts)
 * says a failure in the page's language, by the answer's `code`.
 */
import type { BffErrorCode } from '../server/utils/bff/error-codes'
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
  /** with `validation_failed`: each field's refusal as a code (iam/contract/field-issues.ts) */
  fieldIssues?: Record<string, { code?: unknown; limit?: unknown }>
  data?: unknown
  [key: string]: unknown
}

export interface BffResult<T extends BffBody = BffBody> {
  status: number
  body: T
}

/** Calls a BFF route; status 0 means the network failed. */
export async function bffFetch<T extends BffBody = BffBody>(
  path: string,
  options: { method?: 'GET' | 'POST' | 'PUT'; body?: unknown; /** sent as is with its own type (a picture upload) instead of JSON */ file?: Blob } = {},
): Promise<BffResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-csrf': '1' }
  if (options.file) headers['content-type'] = options.file.type || 'application/octet-stream'
  else if (options.body !== undefined) headers['content-type'] = 'application/json'
  try {
    const res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.file ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
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
