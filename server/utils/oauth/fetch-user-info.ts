/**
 * The user object. OIDC: the validated ID token's identity claims, then the UserInfo response
 * (OIDC Core 5.3.2: its `sub` must equal the ID token's, else it may belong to someone else).
 * OAuth: GET userInfoEndpoint with the access token as a Bearer token (RFC 6750 section 2.1).
 */
import * as oauth from 'oauth4webapi'
import type { ProviderConfig } from '../gateway-config'
import type { OAuthRedirectError } from './error-codes'
import { requestOptionsFor } from './http-options'
import { oauthStepFailed } from './log'

export type UserInfoResult = { ok: true; user: Record<string, unknown> } | { ok: false; error: OAuthRedirectError }

// Protocol claims of the ID token: about the token, not the user, so never forwarded to the IAM.
const PROTOCOL_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'at_hash', 'c_hash', 's_hash', 'azp', 'auth_time', 'sid', 'acr', 'amr', 'jti'])

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const failed = (provider: ProviderConfig, error: OAuthRedirectError, reason: unknown): UserInfoResult => oauthStepFailed('userinfo refused', provider, error, reason)

/** Builds the user object for the success step. */
export async function fetchUserInfo(
  provider: ProviderConfig,
  as: oauth.AuthorizationServer,
  accessToken: string,
  idTokenClaims: oauth.IDToken | undefined,
): Promise<UserInfoResult> {
  const client = { client_id: provider.clientId }
  if (provider.kind === 'oidc') {
    if (!idTokenClaims) return failed(provider, 'id_token_invalid', 'no ID token claims')
    const user: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(idTokenClaims)) if (!PROTOCOL_CLAIMS.has(key)) user[key] = value
    if (!as.userinfo_endpoint) return { ok: true, user }
    let info: oauth.UserInfoResponse
    try {
      const res = await oauth.userInfoRequest(as, client, accessToken, requestOptionsFor(as.userinfo_endpoint))
      // the subject is compared below, so the mismatch gets its own code
      info = await oauth.processUserInfoResponse(as, client, oauth.skipSubjectCheck, res)
    } catch (error) {
      return failed(provider, 'userinfo_failed', error)
    }
    if (info.sub !== idTokenClaims.sub) return failed(provider, 'userinfo_invalid', 'userinfo sub differs from the ID token sub')
    return { ok: true, user: { ...user, ...info } }
  }

  const url = new URL(provider.userInfoEndpoint)
  try {
    const res = await oauth.protectedResourceRequest(
      accessToken,
      'GET',
      url,
      new Headers({ accept: 'application/json' }),
      null,
      requestOptionsFor(url),
    )
    if (!res.ok) return failed(provider, 'userinfo_failed', `userinfo answered ${res.status}`)
    const body: unknown = await res.json()
    if (!isPlainObject(body)) return failed(provider, 'userinfo_failed', 'userinfo is not a JSON object')
    return { ok: true, user: body }
  } catch (error) {
    return failed(provider, 'userinfo_failed', error)
  }
}
