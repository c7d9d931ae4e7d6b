/**
 * Code exchange (RFC 6749 section 4.1.3, client auth per tokenAuthMethod, RFC 7636 section 4.5
 * verifier) and, for OIDC, ID token validation (OIDC Core 3.1.3.7): oauth4webapi checks iss, aud,
 * exp/iat and nonce; the JWS signature is then verified against the provider's JWKS (the token
 * endpoint's TLS alone is not relied on), and azp and at_hash are checked explicitly.
 */
import * as oauth from 'oauth4webapi'
import type { ProviderConfig } from '../gateway-config'
import { clientAuthFor, clientFor, jwksCacheFor } from './authorization-server'
import type { OAuthRedirectError } from './error-codes'
import { requestOptionsFor } from './http-options'
import { atHashMatches, azpMatches, jwsAlg } from './id-token-checks'
import { oauthStepFailed } from './log'

export type ExchangeResult =
  | { ok: true; accessToken: string; idTokenClaims?: oauth.IDToken }
  | { ok: false; error: OAuthRedirectError }

// Errors of the token response that concern the ID token rather than the exchange itself.
const ID_TOKEN_ERROR_CODES = new Set<string>([oauth.JWT_CLAIM_COMPARISON, oauth.JWT_TIMESTAMP_CHECK])

function isIdTokenError(error: unknown): boolean {
  if (!(error instanceof oauth.OperationProcessingError)) return false
  return ID_TOKEN_ERROR_CODES.has(error.code ?? '') || /id.?token|JWT/i.test(error.message)
}

const failed = (provider: ProviderConfig, error: OAuthRedirectError, reason: unknown): ExchangeResult => oauthStepFailed('code exchange refused', provider, error, reason)

/** Exchanges the validated authorization response for tokens and validates the ID token. */
export async function exchangeCode(
  provider: ProviderConfig,
  as: oauth.AuthorizationServer,
  params: URLSearchParams,
  cookies: { pkceVerifier?: string; nonce?: string },
): Promise<ExchangeResult> {
  const client = clientFor(provider)
  let response: Response
  try {
    response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuthFor(provider),
      params,
      provider.redirectUri,
      provider.supportPKCE && cookies.pkceVerifier ? cookies.pkceVerifier : oauth.nopkce,
      requestOptionsFor(as.token_endpoint),
    )
  } catch (error) {
    return failed(provider, 'token_exchange_failed', error)
  }
  if (!response.ok) return failed(provider, 'token_exchange_failed', `token endpoint answered ${response.status}`)

  let tokens: oauth.TokenEndpointResponse
  try {
    tokens =
      provider.kind === 'oidc'
        ? // nonce: the cookie must exist (checked by the caller) and the claim must equal it; an ID
          // token without nonce fails the comparison, so "missing on either side" fails.
          await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: cookies.nonce, requireIdToken: true })
        : await oauth.processAuthorizationCodeResponse(as, client, response)
  } catch (error) {
    return failed(provider, isIdTokenError(error) ? 'id_token_invalid' : 'token_exchange_failed', error)
  }
  if (provider.kind !== 'oidc') return { ok: true, accessToken: tokens.access_token }

  const claims = oauth.getValidatedIdTokenClaims(tokens)
  if (!claims || !tokens.id_token) return failed(provider, 'id_token_invalid', 'no ID token')
  try {
    await oauth.validateApplicationLevelSignature(as, response, {
      ...requestOptionsFor(as.jwks_uri),
      [oauth.jwksCache]: jwksCacheFor(provider),
    })
  } catch (error) {
    return failed(provider, 'id_token_invalid', error)
  }
  if (!azpMatches(claims, provider.clientId)) return failed(provider, 'id_token_invalid', 'azp is not our client_id')
  const alg = jwsAlg(tokens.id_token)
  if (!alg || !atHashMatches(claims, alg, tokens.access_token)) return failed(provider, 'id_token_invalid', 'at_hash mismatch')
  return { ok: true, accessToken: tokens.access_token, idTokenClaims: claims }
}
