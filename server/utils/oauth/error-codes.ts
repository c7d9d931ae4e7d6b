/**
 * The closed set of `error` codes the OAuth flow puts on `redirectUrlOnError`,
 * plus the codes of the flow's 4xx JSON answers (OAuthStatusError below). The error page switches on these; they never carry
 * provider text (error_description is not forwarded: it is attacker-controllable input).
 */

/** Codes sent as `?error=` to redirectUrlOnError. */
export type OAuthRedirectError =
  /** the provider answered with `error` (RFC 6749 section 4.1.2.1); its code when known, else access_denied */
  | ProviderErrorCode
  /** the callback carried neither `error` nor `code` */
  | 'missing_code'
  /** the PKCE verifier cookie was gone (the flow cannot be completed safely) */
  | 'invalid_state'
  /** discovery or the provider's metadata could not be loaded */
  | 'provider_unavailable'
  /** the token endpoint refused the code or could not be reached */
  | 'token_exchange_failed'
  /** ID token signature, iss/aud/exp, nonce, azp or at_hash failed (or the nonce cookie was gone) */
  | 'id_token_invalid'
  /** the userinfo request failed or did not answer a JSON object */
  | 'userinfo_failed'
  /** userinfo `sub` differs from the ID token's `sub` (OIDC Core 5.3.2) */
  | 'userinfo_invalid'
  /** a registered emailCallBack or extraUserInfoCallBack threw */
  | 'callback_failed'
  /** the IAM answered something other than 200/201/409/429 */
  | 'iam_rejected'
  /** the IAM answered 409 (the email belongs to another account) */
  | 'iam_conflict'
  /** the IAM answered 429 */
  | 'rate_limited'
  /** the IAM could not be reached */
  | 'iam_unavailable'

/** Codes of the JSON bodies `{ error }` answered with a status instead of a redirect. */
export type OAuthStatusError =
  | 'unknown_provider' // 404
  | 'invalid_state' // 400: state cookie missing, bad signature, stale, or state mismatch
  | 'iss_mismatch' // 400: RFC 9207 iss parameter missing (when advertised) or different
  | 'email_missing' // 400: no email resolvable
  | 'method_not_allowed' // 405: POST callback for a provider not configured for form_post
  | 'payload_too_large' // 413: form_post body over its limit (server/utils/request-body.ts)

// RFC 6749 section 4.1.2.1 and OpenID Connect Core 3.1.2.6: the codes we pass through as they are.
export const PROVIDER_ERROR_CODES = [
  'access_denied',
  'invalid_request',
  'unauthorized_client',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
] as const

export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number]

/** A provider's `error` parameter (a code, RFC 6749 section 4.1.2.1) mapped into our closed set (anything unknown is access_denied). */
export function mapProviderError(code: string): ProviderErrorCode {
  return (PROVIDER_ERROR_CODES as readonly string[]).includes(code) ? (code as ProviderErrorCode) : 'access_denied'
}

/** Every code of our own the flow can put on redirectUrlOnError (the error page explains each). */
export const FLOW_ERROR_CODES = [
  'missing_code',
  'invalid_state',
  'provider_unavailable',
  'token_exchange_failed',
  'id_token_invalid',
  'userinfo_failed',
  'userinfo_invalid',
  'callback_failed',
  'iam_rejected',
  'iam_conflict',
  'rate_limited',
  'iam_unavailable',
] as const satisfies readonly OAuthRedirectError[]
