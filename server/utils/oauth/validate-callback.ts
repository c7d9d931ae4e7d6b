/**
 * The callback's validation step (gateway.md, Validation step), as a table of ordered checks:
 *   1. provider `error` parameter            -> redirect (its code, RFC 6749 4.1.2.1)
 *   2. `code` missing                        -> redirect missing_code
 *   3. state cookie signature/expiry, state  -> 400 invalid_state (RFC 6749 10.12, RFC 9700 4.7)
 *   4. RFC 9207 `iss` parameter (oidc)       -> 400 iss_mismatch
 *   5. code exchange (+ PKCE verifier)       -> redirect token_exchange_failed
 *   6. ID token: claims + nonce, signature against the JWKS, azp, at_hash -> redirect id_token_invalid
 *   7. userinfo (oidc: sub must match; oauth: Bearer GET) -> redirect userinfo_invalid / userinfo_failed
 * No claim is read before it is validated. Clearing the flow cookies is the caller's job.
 */
import * as oauth from 'oauth4webapi'
import type { ProviderConfig } from '../gateway-config'
import { getAuthorizationServer } from './authorization-server'
import { exchangeCode } from './exchange-code'
import { mapProviderError, type OAuthRedirectError, type OAuthStatusError } from './error-codes'
import { fetchUserInfo } from './fetch-user-info'
import { logOAuth } from './log'
import { safeEqual, verifyState } from './state-cookie'

export type ValidationResult =
  | { ok: true; accessToken: string; userData: Record<string, unknown>; /** canary_id bound at the start ('' if none) */ device: string }
  | { ok: false; status: 400; error: OAuthStatusError }
  | { ok: false; redirect: OAuthRedirectError }

export interface CallbackInput {
  provider: ProviderConfig
  /** the authorization response: query (GET) or form body (POST, form_post) */
  params: URLSearchParams
  cookies: { state?: string; pkceVerifier?: string; nonce?: string }
  cookieSecret: string
  nowMs: number
}

const fail400 = (error: OAuthStatusError): ValidationResult => ({ ok: false, status: 400, error })
const redirect = (error: OAuthRedirectError): ValidationResult => ({ ok: false, redirect: error })

/** Runs the validation step; every outcome is a value. */
export async function validateCallback(input: CallbackInput): Promise<ValidationResult> {
  const { provider, params, cookies } = input
  const providerError = params.get('error')
  if (providerError !== null) return redirect(mapProviderError(providerError))
  if (!params.get('code')) return redirect('missing_code')

  const signed = verifyState(input.cookieSecret, provider.name, cookies.state, input.nowMs)
  const givenState = params.get('state')
  if (!signed || givenState === null || !safeEqual(signed.state, givenState)) return fail400('invalid_state')
  const expectedState = signed.state

  let as: oauth.AuthorizationServer
  try {
    as = await getAuthorizationServer(provider, input.nowMs)
  } catch (error) {
    logOAuth('error', 'provider metadata unavailable', { provider: provider.name, reason: (error as Error).message })
    return redirect('provider_unavailable')
  }

  let responseParams = new URLSearchParams(params)
  if (provider.kind === 'oidc') {
    // RFC 9207 section 2.4: when present iss must equal the issuer; when the server advertises it,
    // its absence is an error too (a mix-up attack strips it).
    const iss = params.get('iss')
    if (iss !== null ? iss !== as.issuer : as.authorization_response_iss_parameter_supported === true) {
      return fail400('iss_mismatch')
    }
  } else {
    // plain OAuth 2.0 has no configured issuer identifier to compare an iss parameter with
    responseParams.delete('iss')
  }
  try {
    responseParams = oauth.validateAuthResponse(as, { client_id: provider.clientId }, responseParams, expectedState)
  } catch (error) {
    logOAuth('warn', 'authorization response refused', { provider: provider.name, reason: (error as Error).message })
    return fail400('invalid_state')
  }

  // The verifier and nonce travel with the state; a missing one means the cookies were tampered
  // with or partly lost, and the exchange must not run without them.
  if (provider.supportPKCE && !cookies.pkceVerifier) return redirect('invalid_state')
  if (provider.kind === 'oidc' && !cookies.nonce) return redirect('id_token_invalid')

  const exchanged = await exchangeCode(provider, as, responseParams, cookies)
  if (!exchanged.ok) return redirect(exchanged.error)

  const info = await fetchUserInfo(provider, as, exchanged.accessToken, exchanged.idTokenClaims)
  if (!info.ok) return redirect(info.error)
  return { ok: true, accessToken: exchanged.accessToken, userData: info.user, device: signed.device }
}
