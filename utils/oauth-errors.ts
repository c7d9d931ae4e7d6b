/**
 * What the /auth/error page tells a person for each `error` code the OAuth flow redirects with
 * (server/utils/oauth/error-codes.ts): the catalogue keys (i18n/locales, `oauthError.<code>`) of its
 * title and text, said in the page's language. Plain data so a unit test can check every code is covered.
 */
export interface OAuthErrorExplanation {
  /** catalogue key of the page's heading */
  title: string
  /** catalogue key of the sentence under it */
  text: string
}

const keysOf = (code: string): OAuthErrorExplanation => ({ title: `oauthError.${code}.title`, text: `oauthError.${code}.text` })

/** The provider's own answers (RFC 6749 4.1.2.1, OpenID Connect Core 3.1.2.6), then our own checks. */
const CODES = [
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
  'missing_code',
  'invalid_state',
  'provider_unavailable',
  'token_exchange_failed',
  'id_token_invalid',
  'userinfo_failed',
  'userinfo_invalid',
  'callback_failed',
  'email_missing',
  'iam_rejected',
  'iam_conflict',
  'rate_limited',
  'iam_unavailable',
] as const

export const OAUTH_ERROR_EXPLANATIONS: Record<string, OAuthErrorExplanation> = Object.fromEntries(CODES.map((code) => [code, keysOf(code)]))

export const UNKNOWN_OAUTH_ERROR: OAuthErrorExplanation = keysOf('unknown')

/** The explanation for a code; unknown codes (or none) get a generic one, never the raw input. */
export function explainOAuthError(code: string): OAuthErrorExplanation {
  return Object.hasOwn(OAUTH_ERROR_EXPLANATIONS, code) ? OAUTH_ERROR_EXPLANATIONS[code]! : UNKNOWN_OAUTH_ERROR
}
