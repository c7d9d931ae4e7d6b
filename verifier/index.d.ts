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
  /** DPoP (RFC 9449): how proofs for key-bound tokens are checked, and whether unbound tokens are refused. */
  dpop?: DpopOptions
}

export interface DpopOptions {
  /** Refuse access tokens that are not bound to a key (default false: bound ones need a proof, others pass as Bearer). */
  required?: boolean
  /** JWS algorithms a proof may use (default ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256']); asymmetric only. */
  algorithms?: string[]
  /** How far a proof's `iat` may be from now, either way, in seconds (default 60; plus clockToleranceSeconds). */
  windowSeconds?: number
  /**
   * Remembers proof ids (`jti`) so that a proof is used once: `unique` is true the first time,
   * false after, until `expiresAt` (seconds). Default: in this process's memory; several instances
   * behind one URL need a shared one (e.g. Redis `SET key 1 NX EXAT expiresAt`).
   */
  jtiStore?: { unique(jti: string, expiresAt: number): boolean | Promise<boolean> }
}

/** The request a DPoP proof is checked against (RFC 9449 section 4.3). */
export interface DpopRequest {
  /** The request's `DPoP` header value(s); exactly one proof is accepted. */
  proof: string | string[] | undefined
  /** The HTTP method, upper case. */
  method: string
  /** The full URL the client addressed (query and fragment are ignored). */
  url: string
}

export interface VerifyOptions {
  /** Replaces the verifier's requiredScopes for this call. */
  requiredScopes?: string[]
  /** Replaces the verifier's requiredRoles for this call. */
  requiredRoles?: string[]
  /** false skips introspection for this call (default: introspect when configured). */
  introspect?: boolean
  /** The request, for the DPoP proof of a key-bound token; without it such a token is refused. */
  dpop?: DpopRequest
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
  /** a key-bound (DPoP) token sent as Bearer, or an unbound token where DPoP is required */
  | 'dpop_required'
  /** the DPoP proof is missing, invalid, for another request, token or key, stale, or replayed */
  | 'invalid_dpop_proof'

export interface AccessTokenFailure {
  ok: false
  /** 401: no valid token; 403: valid but lacking a scope or role; 503: could not be judged (keys or introspection unreachable). */
  status: 401 | 403 | 503
  reason: AccessTokenFailureReason
  /** RFC 6750 / RFC 9449 error code: absent for 'missing' and 503. */
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof'
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

/** The scheme and token of an `Authorization: Bearer|DPoP <token>` value, or undefined. */
export function credentialsFrom(header: string | null | undefined): { scheme: 'bearer' | 'dpop'; token: string } | undefined

export interface ChallengeOptions {
  realm?: string
  /** RFC 9728 section 5.1: the URL of the resource's metadata document. */
  resourceMetadata?: string
  /** The scopes to ask for (RFC 6750 section 3), when the failure names none itself. */
  scope?: string
  /** Adds the DPoP challenge (RFC 9449 section 7.1); `required` leaves the Bearer one out. */
  dpop?: { algorithms: string[]; required?: boolean }
}

/**
 * The WWW-Authenticate value for a failure (RFC 6750 section 3, RFC 9728 section 5.1, RFC 9449
 * section 7.1); undefined for success and 503. The Bearer challenge comes first.
 */
export function wwwAuthenticate(result: AccessTokenResult, options?: ChallengeOptions): string | undefined

/** RFC 9728 section 2: the protected resource metadata document. */
export interface ProtectedResourceMetadata {
  resource: string
  authorization_servers: string[]
  scopes_supported?: string[]
  bearer_methods_supported: ['header']
  resource_name?: string
  resource_documentation?: string
  dpop_signing_alg_values_supported?: string[]
  dpop_bound_access_tokens_required?: true
}

export interface ProtectedResourceOptions extends Omit<AccessTokenVerifierOptions, 'issuer' | 'audience' | 'dpop'> {
  /** The resource identifier (RFC 8707, RFC 9728): its https URL, the `aud` tokens must carry, the `resource` clients ask for. */
  resource: string
  /** The issuer identifiers of the authorization servers that issue tokens for it. */
  authorizationServers: string[]
  /** The `iss` tokens must carry (default: authorizationServers). */
  issuer?: string | string[]
  /** Announced as `scopes_supported`. */
  scopesSupported?: string[]
  resourceName?: string
  resourceDocumentation?: string
  /** The `realm` of its challenges. */
  realm?: string
  /** Accept DPoP-bound tokens with their proofs, and announce it (RFC 9449 section 5.1). */
  dpop?: DpopOptions
}

export interface HttpAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

export interface ProtectedResource {
  metadata: Readonly<ProtectedResourceMetadata>
  /** Where the metadata is published (RFC 9728 section 3.1). */
  metadataUrl: string
  /** Its path (and query), for a router. */
  metadataPath: string
  /** The verifier, with the resource as its audience. */
  verify: AccessTokenVerifier
  /** Verifies a request (node:http IncomingMessage or a fetch Request): its Authorization header, and its DPoP proof against its method and URL on the resource's origin. */
  verifyRequest(
    req: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> | { get(name: string): string | null } },
    options?: Omit<VerifyOptions, 'dpop'>,
  ): Promise<AccessTokenResult>
  /** The WWW-Authenticate value for a failure: resource_metadata, the scopes to ask for, the DPoP challenge. */
  challenge(result: AccessTokenResult, options?: { requiredScopes?: string[] }): string | undefined
  /** The 200 answer to GET metadataPath. */
  metadataResponse(): HttpAnswer
  /** The 401/403/503 answer for a failure, with its challenge and a JSON body `{ error, error_description }`. */
  failureResponse(result: AccessTokenFailure, options?: { requiredScopes?: string[] }): HttpAnswer
}

export function createProtectedResource(options: ProtectedResourceOptions): ProtectedResource

/** RFC 9728 section 3.1: where the metadata of `resource` is published. */
export function protectedResourceMetadataUrl(resource: string): string
export function protectedResourceMetadataPath(resource: string): string
/** RFC 9728 section 2: the metadata document for these options. */
export function protectedResourceMetadata(options: Omit<ProtectedResourceOptions, 'dpop'> & { dpop?: { algorithms: string[]; required?: boolean } }): ProtectedResourceMetadata
