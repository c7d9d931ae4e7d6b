/**
 * What the /auth/error page tells a person for each `error` code the OAuth flow redirects with
 * (server/utils/oauth/error-codes.ts). Plain data so a unit test can check every code is covered.
 */
export interface OAuthErrorExplanation {
  title: string
  text: string
}

const TRY_AGAIN = 'Please try again; if it keeps happening, sign in with your email and password.'

export const OAUTH_ERROR_EXPLANATIONS: Record<string, OAuthErrorExplanation> = {
  // the provider's own answers (RFC 6749 4.1.2.1, OpenID Connect Core 3.1.2.6)
  access_denied: { title: 'Sign-in was cancelled', text: 'You (or the provider) declined the request. Nothing was changed. You can try again or sign in with your email.' },
  invalid_request: { title: 'The provider refused the request', text: `The provider could not process the sign-in request. ${TRY_AGAIN}` },
  unauthorized_client: { title: 'This provider is not set up correctly', text: 'The provider does not allow this site to sign you in. Please contact support.' },
  unsupported_response_type: { title: 'This provider is not set up correctly', text: 'The provider does not support the way this site signs in. Please contact support.' },
  invalid_scope: { title: 'This provider is not set up correctly', text: 'The provider refused the permissions this site asked for. Please contact support.' },
  server_error: { title: 'The provider had a problem', text: `The provider could not complete the sign-in. ${TRY_AGAIN}` },
  temporarily_unavailable: { title: 'The provider is busy', text: 'The provider is temporarily unavailable. Please try again in a few minutes.' },
  interaction_required: { title: 'The provider needs you', text: 'The provider needs you to finish a step on its site. Start the sign-in again and follow its instructions.' },
  login_required: { title: 'Sign in with the provider first', text: 'The provider needs you to sign in there. Start the sign-in again.' },
  account_selection_required: { title: 'Choose an account', text: 'The provider needs you to choose an account. Start the sign-in again and pick one.' },
  consent_required: { title: 'Permission is needed', text: 'The provider needs your permission to share your details with this site. Start again and allow access.' },
  // our own checks
  missing_code: { title: 'The provider did not finish the sign-in', text: `The provider sent you back without a result. ${TRY_AGAIN}` },
  invalid_state: { title: 'The sign-in took too long or was interrupted', text: 'The sign-in session expired or did not match this browser. Start again from the sign-in page.' },
  provider_unavailable: { title: 'The provider could not be reached', text: 'We could not reach the sign-in provider. Please try again shortly.' },
  token_exchange_failed: { title: 'The provider did not confirm the sign-in', text: 'We could not complete the exchange with the provider. Please try again in a moment.' },
  id_token_invalid: { title: 'The provider’s answer could not be verified', text: 'For your safety we did not sign you in. Please try again; if it keeps happening, use email sign-in.' },
  userinfo_failed: { title: 'Your profile could not be loaded', text: `The provider did not give us your profile. ${TRY_AGAIN}` },
  userinfo_invalid: { title: 'The provider’s answer could not be verified', text: 'The profile did not match the signed-in account, so for your safety we did not sign you in.' },
  callback_failed: { title: 'We could not complete the sign-in', text: `Loading your details from the provider failed. ${TRY_AGAIN}` },
  email_missing: { title: 'No email address was shared', text: 'The provider did not give us an email address. Allow access to your email with the provider, or sign up with email.' },
  iam_rejected: { title: 'We could not sign you in', text: 'Your account could not be signed in with this provider. Try another sign-in method or contact support.' },
  iam_conflict: { title: 'This email already has an account', text: 'An account with this email exists already. Sign in with your password instead.' },
  rate_limited: { title: 'Too many attempts', text: 'Please wait a few minutes before trying again.' },
  iam_unavailable: { title: 'Sign-in is temporarily unavailable', text: 'Our sign-in service did not respond. Please try again shortly.' },
}

export const UNKNOWN_OAUTH_ERROR: OAuthErrorExplanation = {
  title: 'Sign-in failed',
  text: 'Something went wrong while signing in with the provider. Please try again.',
}

/** The explanation for a code; unknown codes (or none) get a generic one, never the raw input. */
export function explainOAuthError(code: string): OAuthErrorExplanation {
  return Object.hasOwn(OAUTH_ERROR_EXPLANATIONS, code) ? OAUTH_ERROR_EXPLANATIONS[code]! : UNKNOWN_OAUTH_ERROR
}
