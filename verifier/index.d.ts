import type { JWTHeaderParameters, JWTPayload, RemoteJWKSetOptions } from 'jose'

export interface IntrospectionOptions {
  /** The authorization server's introspection endpoint (RFC 7662); default: its metadata's `introspection_endpoint`. */
  endpoint?: string
  /** This API's client at the authorization server (client_secret_basic). */
  clientId: string
  clientSecret: string
  /**
   * Seconds an `active: true` answer is used again for the same token (never past its `exp`);
   * default 0: every request asks. A revocation can go unseen for up to this long.
   */
  cacheSeconds?: number
}

export interface AccessTokenVerifierOptions {
  /** The `iss` a token must carry (one or several). */
  issuer: string | string[]
  /** The `aud` a token must carry (one of these). */
  audience: string | string[]
  /** The JWK Set URL; default: the `jwks_uri` of `{issuer}/.well-known/openid-configuration`. */
  jwksUri?: string
  /** Allowed JWS algorithms, asymmetric only (default ['EdDSA', 'RS256', 'ES256']); none and HS* throw. */
  algorithms?: string[]
  /** Leeway for exp and nbf, in seconds (default 5). */
  clockToleranceSeconds?: number
  /** The `typ` header a token must carry (default 'at+jwt', RFC 9068); `null` accepts any. */
  typ?: string | null
  /** Scopes (the space-separated `scope` claim) every call requires unless the call names its own. */
  requiredScopes?: string[]
  /** Roles (the `roles` claim array of the IAM's session tokens) every call requires unless the call names its own. */
  requiredRoles?: string[]
  /** Ask the authorization server too (RFC 7662), so a revoked token is refused at once. */
  introspection?: IntrospectionOptions
  /** Timeout of each request to the issuer (metadata, keys, introspection), ms (default 5000). */
  timeoutMs?: number
  /** jose's remote JWK Set options (cooldownDuration, cacheMaxAge, ...). */
  jwks?: Omit<RemoteJWKSetOptions, 'timeoutDuration'>
  /** The fetch used for metadata, keys and introspection (default: global fetch). */
  fetch?: typeof fetch
}

export interface VerifyOptions {
  /** Replaces the verifier's requiredScopes for this call. */
  requiredScopes?: string[]
  /** Replaces the verifier's requiredRoles for this call. */
  requiredRoles?: string[]
  /** false skips introspection for this call (default: introspect when configured). */
  introspect?: boolean
}

export interface VerifiedAccessToken {
  ok: true
  /** `sub`: the person, or the client itself for client credentials. */
  subject: string
  /** `client_id` (RFC 9068 tokens), when present. */
  clientId: string | undefined
  /** The `scope` claim split on spaces; [] when absent. */
  scopes: string[]
  /** The `roles` claim (the IAM's session tokens); [] when absent. */
  roles: string[]
  /** The JWT's payload, or for an opaque token the introspection answer (with `sub` = its `sub` or `client_id`). */
  claims: JWTPayload & { sub: string; exp: number }
  /** The JWT's protected header; undefined for an opaque token. */
  header: JWTHeaderParameters | undefined
}

export type AccessTokenFailureReason =
  | 'missing'
  | 'malformed'
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'wrong_type'
  | 'unknown_key'
  | 'bad_signature'
  | 'disallowed_algorithm'
  | 'insufficient_scope'
  | 'revoked'
  | 'unavailable'

export interface AccessTokenFailure {
  ok: false
  /** 401: no valid token; 403: valid but lacking a scope or role; 503: could not be judged (keys or introspection unreachable). */
  status: 401 | 403 | 503
  reason: AccessTokenFailureReason
  /** RFC 6750 error code: absent for 'missing' and 503. */
  error?: 'invalid_token' | 'insufficient_scope'
  /** For a missing scope: the scopes the call requires (RFC 6750 `scope` attribute). */
  scope?: string
  /** A sentence for logs and error_description; never contains the token. */
  message: string
}

export type AccessTokenResult = VerifiedAccessToken | AccessTokenFailure

export type AccessTokenVerifier = (tokenOrAuthorizationHeader: string | null | undefined, options?: VerifyOptions) => Promise<AccessTokenResult>

export function createAccessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier

/** The token of an `Authorization: Bearer <token>` value, or undefined. */
export function bearerFrom(header: string | null | undefined): string | undefined

/** The WWW-Authenticate value for a failure (RFC 6750 section 3); undefined for success and 503. */
export function wwwAuthenticate(result: AccessTokenResult, options?: { realm?: string }): string | undefined
