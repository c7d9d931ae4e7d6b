/**
 * The authorization request (RFC 6749 section 4.1.1, OIDC Core 3.1.2.1): a fresh state, a PKCE S256
 * pair when supportPKCE (RFC 7636 section 4.1-4.2), and a nonce for OIDC providers. The random
 * values come from oauth4webapi (32 bytes from the CSPRNG, base64url).
 */
import * as oauth from 'oauth4webapi'
import type { ProviderConfig } from '../gateway-config'
import { signState, FLOW_COOKIE_TTL_MS } from './state-cookie'

export interface AuthorizationRequest {
  url: URL
  /** the cookie values to store */
  cookies: { state: string; pkceVerifier?: string; nonce?: string }
}

/** Builds the authorization URL and the flow cookie values for one login attempt. */
export async function buildAuthorizationRequest(
  provider: ProviderConfig,
  as: oauth.AuthorizationServer,
  cookieSecret: string,
  nowMs: number,
  /** the browser's canary_id, bound into the signed state (see state-cookie.ts) */
  device: string,
): Promise<AuthorizationRequest> {
  if (!as.authorization_endpoint) throw new Error(`provider ${provider.name}: no authorization_endpoint`)
  const url = new URL(as.authorization_endpoint)
  // extraAuthParams first: the schema already refuses reserved names, and the protocol parameters
  // below are set (not appended) so they would win anyway.
  for (const [key, value] of Object.entries(provider.extraAuthParams)) url.searchParams.set(key, value)
  const scopes = new Set(provider.defaultScopes)
  // OIDC needs the openid scope to get an ID token (OIDC Core 3.1.2.1); add it rather than fail later
  if (provider.kind === 'oidc') scopes.add('openid')
  const state = oauth.generateRandomState()
  url.searchParams.set('client_id', provider.clientId)
  url.searchParams.set('redirect_uri', provider.redirectUri)
  url.searchParams.set('response_type', 'code')
  if (scopes.size) url.searchParams.set('scope', [...scopes].join(' '))
  url.searchParams.set('state', state)
  const cookies: AuthorizationRequest['cookies'] = { state: signState(cookieSecret, provider.name, state, nowMs + FLOW_COOKIE_TTL_MS, device) }
  if (provider.supportPKCE) {
    cookies.pkceVerifier = oauth.generateRandomCodeVerifier()
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(cookies.pkceVerifier))
    url.searchParams.set('code_challenge_method', 'S256')
  }
  if (provider.kind === 'oidc') {
    cookies.nonce = oauth.generateRandomNonce()
    url.searchParams.set('nonce', cookies.nonce)
  }
  return { url, cookies }
}
