/**
 * Access-token verification for resource servers (the APIs the platform's tokens are sent to).
 *
 * Plain ESM JavaScript with its types in index.d.ts next to it, so an API imports it without a
 * build step or a TypeScript loader:
 *
 *   import { createAccessTokenVerifier, bearerFrom, wwwAuthenticate } from 'identity-platform/verifier'
 *
 * Offline first: the token's signature against the issuer's published keys (jose's
 * createRemoteJWKSet: fetched once, cached, refetched once when a token names a key not seen yet,
 * no more often than its cooldown), the algorithm from an allow-list of asymmetric ones, the
 * issuer, the audience, `typ: at+jwt` (RFC 9068 section 4), expiry and not-before with a small
 * clock tolerance, then the scopes and roles a route asks for. Optionally, for tokens whose
 * revocation must be seen at once, the authorization server's introspection endpoint (RFC 7662)
 * is asked too; when it cannot answer, the request is refused (fail closed).
 *
 * The only dependency is `jose`.
 */
import { createRemoteJWKSet, customFetch, errors, jwtVerify } from 'jose'
import { checkDpopProof, DEFAULT_DPOP_ALGORITHMS, DEFAULT_DPOP_WINDOW_SECONDS, memoryJtiStore } from './dpop.js'
import { protectedResourceMetadata, protectedResourceMetadataPath, protectedResourceMetadataUrl, wwwAuthenticate } from './resource-server.js'

export { protectedResourceMetadata, protectedResourceMetadataPath, protectedResourceMetadataUrl, wwwAuthenticate }

/** Asymmetric JWS algorithms a verifier may allow: never `none`, never an HMAC (HS*) one. */
const ASYMMETRIC = new Set(['EdDSA', 'Ed25519', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'])
const DEFAULT_ALGORITHMS = ['EdDSA', 'RS256', 'ES256']
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5
const DEFAULT_TIMEOUT_MS = 5000
const INTROSPECTION_CACHE_MAX_ENTRIES = 10_000
// RFC 6750 section 2.1: b64token
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * The bearer token of an Authorization header value, or undefined when there is none (no header,
 * another scheme, an empty value).
 * @param {string | null | undefined} header
 * @returns {string | undefined}
 */
export function bearerFrom(header) {
  const credentials = credentialsFrom(header)
  return credentials?.scheme === 'bearer' ? credentials.token : undefined
}

/**
 * The scheme and token of an Authorization header value: `Bearer` (RFC 6750) or `DPoP` (RFC 9449
 * section 7.1), or undefined for none or another scheme.
 * @param {string | null | undefined} header
 * @returns {{ scheme: 'bearer' | 'dpop', token: string } | undefined}
 */
export function credentialsFrom(header) {
  if (typeof header !== 'string') return undefined
  const match = /^\s*(Bearer|DPoP)[ \t]+(\S+)\s*$/i.exec(header)
  return match ? { scheme: /** @type {'bearer' | 'dpop'} */ (match[1].toLowerCase()), token: match[2] } : undefined
}

const fail = (status, reason, message, extra) => {
  const error =
    status === 401 ? (reason === 'missing' ? undefined : reason === 'invalid_dpop_proof' ? 'invalid_dpop_proof' : 'invalid_token') : status === 403 ? 'insufficient_scope' : undefined
  return { ok: false, status, reason, message, ...(error ? { error } : {}), ...extra }
}

/** application/x-www-form-urlencoded of one value (a space is +) */
const formEncode = (value) => new URLSearchParams({ v: String(value) }).toString().slice(2)

const asList = (value) => (value === undefined ? [] : Array.isArray(value) ? [...value] : [value])

/** jose's error -> the reason a resource server answers with. */
function failureOf(error) {
  switch (error?.code) {
    case errors.JWTExpired.code:
      return fail(401, 'expired', 'The access token has expired')
    case errors.JWTClaimValidationFailed.code:
      if (error.claim === 'nbf') return fail(401, 'not_yet_valid', 'The access token is not valid yet')
      if (error.claim === 'iss') return fail(401, 'wrong_issuer', 'The access token was issued by another issuer')
      if (error.claim === 'aud') return fail(401, 'wrong_audience', 'The access token is meant for another audience')
      if (error.claim === 'typ') return fail(401, 'wrong_type', 'The token is not an access token (typ at+jwt)')
      return fail(401, 'malformed', `The access token's ${error.claim} claim is ${error.reason === 'missing' ? 'missing' : 'invalid'}`)
    case errors.JOSEAlgNotAllowed.code:
      return fail(401, 'disallowed_algorithm', 'The access token is signed with an algorithm this API does not accept')
    case errors.JWKSNoMatchingKey.code:
    case errors.JWKSMultipleMatchingKeys.code:
      return fail(401, 'unknown_key', "The access token's signing key is not among the issuer's keys")
    case errors.JWSSignatureVerificationFailed.code:
      return fail(401, 'bad_signature', "The access token's signature does not verify")
    case errors.JWSInvalid.code:
    case errors.JWTInvalid.code:
    case errors.JOSENotSupported.code:
    case errors.JWKInvalid.code:
      return fail(401, 'malformed', 'The access token is not a well-formed signed JWT')
    default:
      // the keys could not be fetched (network, timeout, not a JWK Set): the token was not judged
      return fail(503, 'unavailable', "The issuer's keys could not be fetched")
  }
}

/**
 * @param {import('./index.d.ts').AccessTokenVerifierOptions} options
 * @returns {import('./index.d.ts').AccessTokenVerifier}
 */
export function createAccessTokenVerifier(options) {
  const issuers = asList(options?.issuer)
  const audiences = asList(options?.audience)
  if (!issuers.length || issuers.some((i) => typeof i !== 'string' || !i)) throw new TypeError('issuer is required')
  if (!audiences.length || audiences.some((a) => typeof a !== 'string' || !a)) throw new TypeError('audience is required')
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)]
  for (const alg of algorithms) {
    if (!ASYMMETRIC.has(alg)) throw new TypeError(`algorithm ${alg} is not allowed: only asymmetric JWS algorithms (never none or HS*)`)
  }
  const clockTolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS
  const typ = options.typ === undefined ? 'at+jwt' : options.typ || undefined
  const fetchImpl = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const defaultScopes = options.requiredScopes ?? []
  const defaultRoles = options.requiredRoles ?? []

  // Without a jwksUri (and for introspection without an endpoint) the issuer's metadata says
  // where they are: fetched on first use, kept once it answered, asked again after a failure.
  let metadata
  const discover = () => {
    metadata ??= (async () => {
      const url = `${issuers[0].replace(/\/+$/, '')}/.well-known/openid-configuration`
      const res = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) })
      if (!res.ok) throw new Error(`${url} answered ${res.status}`)
      const body = await res.json()
      if (body?.issuer !== issuers[0]) throw new Error(`${url} names another issuer`)
      return body
    })().catch((error) => {
      metadata = undefined
      throw error
    })
    return metadata
  }

  let keySet
  const keys = async () => {
    if (!keySet) {
      const uri = options.jwksUri ?? (await discover()).jwks_uri
      if (typeof uri !== 'string') throw new Error('the issuer publishes no jwks_uri')
      keySet ??= createRemoteJWKSet(new URL(uri), { timeoutDuration: timeoutMs, ...options.jwks, ...(options.fetch ? { [customFetch]: options.fetch } : {}) })
    }
    return keySet
  }

  const introspection = options.introspection
  const cacheMs = Math.max(0, (introspection?.cacheSeconds ?? 0) * 1000)
  /** token -> { until: ms, body }: an `active: true` answer used again until `until` */
  const activeAnswers = new Map()

  /** The endpoint's `active: true` answer for the token (cached until at most `exp`, seconds), or the failure to answer with. */
  async function introspect(token, exp) {
    const now = Date.now()
    const cached = activeAnswers.get(token)
    if (cached !== undefined) {
      if (cached.until > now) return { body: cached.body }
      activeAnswers.delete(token)
    }
    let res
    try {
      const endpoint = introspection.endpoint ?? (await discover()).introspection_endpoint
      if (typeof endpoint !== 'string') throw new Error('the issuer publishes no introspection_endpoint')
      // client_secret_basic: id and secret form-urlencoded, then base64 (RFC 6749 section 2.3.1)
      const basic = Buffer.from(`${formEncode(introspection.clientId)}:${formEncode(introspection.clientSecret)}`).toString('base64')
      res = await fetchImpl(endpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch {
      return { failure: fail(503, 'unavailable', 'The introspection endpoint could not be reached') }
    }
    let body
    try {
      body = await res.json()
    } catch {
      body = undefined
    }
    if (!res.ok || typeof body?.active !== 'boolean') {
      const detail = typeof body?.error === 'string' ? `${res.status} ${body.error}` : `${res.status}`
      return { failure: fail(503, 'unavailable', `The introspection endpoint gave no answer (${detail})`) }
    }
    if (!body.active) return { failure: fail(401, 'revoked', 'The access token is not active (revoked or expired)') }
    const expires = typeof body.exp === 'number' ? body.exp : exp
    if (cacheMs > 0 && typeof expires === 'number') {
      if (activeAnswers.size >= INTROSPECTION_CACHE_MAX_ENTRIES) activeAnswers.delete(activeAnswers.keys().next().value)
      activeAnswers.set(token, { until: Math.min(now + cacheMs, expires * 1000), body })
    }
    return { body }
  }

  /** An opaque token: only the introspection answer says what it is; the same checks as a JWT's claims. */
  function claimsOfIntrospection(body) {
    if (body.iss !== undefined && !issuers.includes(body.iss)) return { failure: fail(401, 'wrong_issuer', 'The access token was issued by another issuer') }
    const aud = asList(body.aud)
    if (!aud.some((a) => audiences.includes(a))) return { failure: fail(401, 'wrong_audience', 'The access token is meant for another audience') }
    if (typeof body.exp !== 'number') return { failure: fail(401, 'malformed', "The introspection answer has no exp") }
    if (body.exp * 1000 <= Date.now() - clockTolerance * 1000) return { failure: fail(401, 'expired', 'The access token has expired') }
    const sub = typeof body.sub === 'string' ? body.sub : body.client_id
    if (typeof sub !== 'string') return { failure: fail(401, 'malformed', 'The introspection answer names no subject') }
    return { claims: { ...body, sub } }
  }

  const dpopRequired = options.dpop?.required === true
  const dpopSettings = {
    algorithms: [...(options.dpop?.algorithms ?? DEFAULT_DPOP_ALGORITHMS)],
    windowSeconds: options.dpop?.windowSeconds ?? DEFAULT_DPOP_WINDOW_SECONDS,
    clockToleranceSeconds: clockTolerance,
    jtis: options.dpop?.jtiStore ?? memoryJtiStore(),
    nowSeconds: () => Math.floor(Date.now() / 1000),
  }
  for (const alg of dpopSettings.algorithms) {
    if (!ASYMMETRIC.has(alg)) throw new TypeError(`DPoP algorithm ${alg} is not allowed: only asymmetric JWS algorithms`)
  }

  /**
   * RFC 9449 section 7: a token bound to a key (`cnf.jkt`, in the JWT or the introspection answer,
   * section 6) is accepted only with the DPoP scheme and a proof by that key for this request; sent
   * as a plain Bearer token it is refused (section 7.2: else a stolen bound token would work as an
   * unbound one). Undefined when the binding holds.
   */
  async function checkBinding(token, scheme, claims, request) {
    const cnf = claims.cnf
    const jkt = cnf !== null && typeof cnf === 'object' ? cnf.jkt : undefined
    if (jkt === undefined) {
      if (scheme === 'dpop') return fail(401, 'malformed', 'The access token is not bound to a key: send it with the Bearer scheme')
      if (dpopRequired) return fail(401, 'dpop_required', 'This API takes DPoP-bound access tokens only')
      return undefined
    }
    if (typeof jkt !== 'string' || !jkt) return fail(401, 'malformed', "The access token's cnf.jkt is invalid")
    if (scheme !== 'dpop') return fail(401, 'dpop_required', 'The access token is bound to a key (DPoP): send it with the DPoP scheme and a proof')
    if (!request || typeof request.method !== 'string' || typeof request.url !== 'string') {
      return fail(401, 'invalid_dpop_proof', 'A DPoP proof is required with this access token')
    }
    const checked = await checkDpopProof(request, { accessToken: token, jkt }, dpopSettings)
    return checked.ok ? undefined : fail(401, 'invalid_dpop_proof', checked.message)
  }

  return async function verify(input, callOptions = {}) {
    let token = typeof input === 'string' ? input.trim() : undefined
    let scheme = 'bearer'
    if (token && /\s/.test(token)) {
      const credentials = credentialsFrom(token)
      token = credentials?.token
      scheme = credentials?.scheme ?? scheme
    }
    if (token && /^(bearer|dpop)$/i.test(token)) token = undefined
    if (!token) return fail(401, 'missing', 'An access token is required')
    if (!B64TOKEN.test(token)) return fail(401, 'malformed', 'The access token is not a well-formed signed JWT')

    let claims
    let header
    let introspected = false
    if (token.split('.').length !== 3 && introspection) {
      // not a JWT: an opaque token, which only its issuer can judge
      const answer = await introspect(token)
      if (answer.failure) return answer.failure
      const checked = claimsOfIntrospection(answer.body)
      if (checked.failure) return checked.failure
      claims = checked.claims
      introspected = true
    } else {
      try {
        const verified = await jwtVerify(token, await keys(), {
          issuer: issuers,
          audience: audiences,
          algorithms,
          clockTolerance,
          typ,
          // a token without an expiry never ends; every token names its subject
          requiredClaims: ['exp', 'sub'],
        })
        claims = verified.payload
        header = verified.protectedHeader
      } catch (error) {
        return failureOf(error)
      }
    }
    // the binding is part of the token's validity (401), so it comes before what it grants (403)
    const unbound = await checkBinding(token, scheme, claims, callOptions.dpop)
    if (unbound) return unbound

    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []
    const roles = Array.isArray(claims.roles) ? claims.roles.filter((r) => typeof r === 'string') : []

    const requiredScopes = callOptions.requiredScopes ?? defaultScopes
    const missingScopes = requiredScopes.filter((s) => !scopes.includes(s))
    if (missingScopes.length) {
      return fail(403, 'insufficient_scope', `The access token lacks the scope ${missingScopes.join(' ')}`, { scope: requiredScopes.join(' ') })
    }
    const requiredRoles = callOptions.requiredRoles ?? defaultRoles
    const missingRoles = requiredRoles.filter((r) => !roles.includes(r))
    if (missingRoles.length) return fail(403, 'insufficient_scope', `The access token lacks the role ${missingRoles.join(' ')}`)

    if (introspection && !introspected && (callOptions.introspect ?? true)) {
      const answer = await introspect(token, claims.exp)
      if (answer.failure) return answer.failure
    }

    return {
      ok: true,
      subject: claims.sub,
      clientId: typeof claims.client_id === 'string' ? claims.client_id : undefined,
      scopes,
      roles,
      claims,
      header,
    }
  }
}

/**
 * One protected resource (an API, an MCP server): the token checks with the resource's identifier
 * as the audience (RFC 8707: a token asked for another resource is refused), its metadata document
 * (RFC 9728) and its challenges (RFC 6750 section 3, RFC 9728 section 5.1, RFC 9449 section 7.1),
 * put together so that a client that meets its 401 can find its way to a token.
 * @param {import('./index.d.ts').ProtectedResourceOptions} options
 * @returns {import('./index.d.ts').ProtectedResource}
 */
export function createProtectedResource(options) {
  const dpop = options.dpop ? { algorithms: [...(options.dpop.algorithms ?? DEFAULT_DPOP_ALGORITHMS)], required: options.dpop.required === true } : undefined
  const metadata = Object.freeze(protectedResourceMetadata({ ...options, dpop }))
  const metadataUrl = protectedResourceMetadataUrl(options.resource)
  const metadataPath = protectedResourceMetadataPath(options.resource)
  const origin = new URL(options.resource).origin
  const verify = createAccessTokenVerifier({
    ...options,
    issuer: options.issuer ?? options.authorizationServers,
    audience: options.resource,
    ...(dpop ? { dpop: { ...options.dpop, ...dpop } } : {}),
  })
  const requiredScopes = options.requiredScopes ?? []

  const challenge = (result, challengeOptions = {}) =>
    wwwAuthenticate(result, {
      realm: options.realm,
      resourceMetadata: metadataUrl,
      scope: (challengeOptions.requiredScopes ?? requiredScopes).join(' ') || undefined,
      dpop,
    })

  return {
    metadata,
    metadataUrl,
    metadataPath,
    verify,
    challenge,
    async verifyRequest(req, callOptions = {}) {
      const headers = req.headers ?? {}
      const header = (name) => (typeof headers.get === 'function' ? (headers.get(name) ?? undefined) : headers[name])
      // the URL the client addressed: the resource's origin (what it was told, whatever proxy is in
      // between), the request's path and query (node gives a path, a fetch Request a whole URL)
      const target = URL.parse(String(req.url ?? '/'), origin)
      const url = new URL(target ? `${target.pathname}${target.search}` : '/', origin)
      const authorization = header('authorization')
      return verify(typeof authorization === 'string' ? authorization : undefined, {
        ...callOptions,
        dpop: { proof: header('dpop'), method: String(req.method ?? 'GET').toUpperCase(), url: url.href },
      })
    },
    metadataResponse() {
      return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' }, body: JSON.stringify(metadata) }
    },
    failureResponse(result, challengeOptions = {}) {
      const value = challenge(result, challengeOptions)
      const headers = { 'content-type': 'application/json', 'cache-control': 'no-store', ...(value ? { 'www-authenticate': value } : {}), ...(result.status === 503 ? { 'retry-after': '5' } : {}) }
      return { status: result.status, headers, body: JSON.stringify({ error: result.error ?? (result.status === 503 ? 'temporarily_unavailable' : 'unauthorized'), error_description: result.message }) }
    },
  }
}
