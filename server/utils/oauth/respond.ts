/**
 * The flow's non-success answers: a redirect to the provider's configured redirectUrlOnError with
 * a code from error-codes.ts (nothing in the request chooses the target), or a JSON `{ error }`
 * with a status where no redirect can be trusted or made (404 unknown provider; 400 state, iss or
 * email; see answerStatus).
 */
import { sendRedirect, setResponseHeader, setResponseStatus, type H3Event } from 'h3'
import type { ProviderConfig } from '../gateway-config'
import type { OAuthRedirectError, OAuthStatusError } from './error-codes'
import { countOAuthOutcome } from '../metrics'

/**
 * 302 to redirectUrlOnError?error=<code> (existing query parameters of the configured URL kept), and
 * `&retry=<seconds>` for a rate limit that came with its wait.
 */
export function redirectWithError(event: H3Event, provider: ProviderConfig, error: OAuthRedirectError, retry?: number): Promise<void> {
  countOAuthOutcome(error)
  const url = new URL(provider.redirectUrlOnError)
  url.searchParams.set('error', error)
  if (retry !== undefined) url.searchParams.set('retry', String(retry))
  setResponseHeader(event, 'cache-control', 'no-store')
  setResponseHeader(event, 'referrer-policy', 'no-referrer')
  return sendRedirect(event, url.href, 302)
}

/** `{ error }` with `status` (404 unknown provider, 405 POST without form_post, 400 state/iss/email, 413 form_post body too large). */
export function answerStatus(event: H3Event, status: 400 | 404 | 405 | 413, error: OAuthStatusError): { error: OAuthStatusError } {
  countOAuthOutcome(error)
  setResponseStatus(event, status)
  setResponseHeader(event, 'cache-control', 'no-store')
  setResponseHeader(event, 'content-type', 'application/json; charset=utf-8')
  return { error }
}
