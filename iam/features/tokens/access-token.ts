/**
 * Access tokens: short-lived EdDSA JWTs, signed and verified through jose. Verification pins the
 * algorithm, issuer and audience (RFC 8725 sections 3.1, 3.9) and picks the key by `kid` from our
 * own ring only; a token naming a key we do not hold, or an algorithm other than EdDSA (none, HS256
 * with the public key ...), fails. tests/unit/jws-differential.test.ts holds every decision
 * against jose's own jwtVerify over a corpus of hostile tokens.
 */
import { randomUUID } from 'node:crypto'
import { compactVerify, decodeProtectedHeader, errors, SignJWT, type JWTPayload, type ProtectedHeaderParameters } from 'jose'
import { ACCESS_TOKEN_ALG, type KeyRing } from './signing-keys'
import type { SignedToken, VerifiedTokens } from './verified-tokens'

/** The organization the session acts for (POST /orgs/active), as its access tokens carry it. */
export interface OrgClaim {
  /** the organization's public id */
  id: string
  slug: string
  /** the built-in role, or the custom role's name */
  role: string
  permissions: string[]
}

export interface AccessClaims {
  /** the person's public id (users.public_id): no serial id leaves the IAM in a token */
  subject: string
  sessionId: string
  visitor: string
  roles: string[]
  /** present while the session has an active organization the user is a member of */
  org?: OrgClaim | null
  /**
   * a session a platform administrator opened on the account's behalf: the actor (RFC 8693
   * section 4.1), `sub` the administrator's public id; and the session's hard end (ms), past which
   * no token of it lives
   */
  act?: { sub: string } | null
  endsAt?: number | null
}

export interface AccessTokenSettings {
  issuer: string
  audience: string
  expiresInMs: number
}

export interface AccessPayload extends JWTPayload {
  sub: string
  sid: string
  jti: string
  visitor: string
  roles: string[]
  org?: OrgClaim
  act?: { sub: string }
  iat: number
  exp: number
}

export type VerifyResult =
  | { ok: true; payload: AccessPayload }
  | { ok: false; code: 'expired' | 'invalid' | 'unknown_key' | 'malformed' }

/** The protected header of every access token: RFC 9068 section 2.1 wants `typ` at+jwt. */
const ACCESS_TYP = 'at+jwt'

/** A compact JWS of `payload` with the ring's current key. */
function signPayload(ring: KeyRing, payload: JWTPayload): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, kid: ring.current.kid, typ: ACCESS_TYP })
    .sign(ring.current.privateKey)
}

/** Signs a token for one session; `iat` in seconds as RFC 7519 wants, `accessIat` in ms for the body. */
export async function signAccessToken(
  ring: KeyRing,
  settings: AccessTokenSettings,
  claims: AccessClaims,
  now: number,
): Promise<{ token: string; jti: string; accessIat: number; expiresInMs: number }> {
  const jti = randomUUID()
  const iat = Math.floor(now / 1000)
  // an impersonated session's token never outlives the session's hard end
  const expiresInMs = claims.endsAt ? Math.max(1000, Math.min(settings.expiresInMs, claims.endsAt - now)) : settings.expiresInMs
  const token = await signPayload(ring, {
    sid: claims.sessionId,
    visitor: claims.visitor,
    roles: claims.roles,
    ...(claims.org ? { org: claims.org } : {}),
    ...(claims.act ? { act: { sub: claims.act.sub } } : {}),
    iss: settings.issuer,
    aud: settings.audience,
    sub: claims.subject,
    jti,
    iat,
    exp: Math.floor((now + expiresInMs) / 1000),
  })
  return { token, jti, accessIat: now, expiresInMs }
}

/** The claims of a per-API access token (iam/features/tokens/api-access-token.ts). */
export interface ApiAccessClaims {
  issuer: string
  /** the one API the token is for */
  audience: string
  /** the person's public id (users.public_id), never the serial id */
  subject: string
  sessionId: string
  visitor: string
  roles: string[]
  org?: OrgClaim
  act?: { sub: string }
  /** ms since the epoch */
  expiresAt: number
}

/**
 * Signs a per-API access token: the session token's claims and header, but one audience and the
 * public subject. The IAM itself never accepts it as a session token: its `aud` is not
 * jwt.access_tokens.audience (the config refuses that), and a session token's `sub` must also be
 * the subject of the session its `sid` names (evaluate-anomalies.ts, check 2).
 */
export function signApiAccessToken(ring: KeyRing, claims: ApiAccessClaims, now: number): Promise<string> {
  return signPayload(ring, {
    sid: claims.sessionId,
    visitor: claims.visitor,
    roles: claims.roles,
    ...(claims.org ? { org: claims.org } : {}),
    ...(claims.act ? { act: { sub: claims.act.sub } } : {}),
    iss: claims.issuer,
    aud: claims.audience,
    sub: claims.subject,
    jti: randomUUID(),
    iat: Math.floor(now / 1000),
    exp: Math.floor(claims.expiresAt / 1000),
  })
}

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string')
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

// RFC 7515 sections 2 and 7.1: three base64url segments, without padding, whitespace or any other
// character. jose decodes segments with the platform's forgiving base64 (atob on Node 22), which
// skips whitespace and padding in the signature: every valid token would have endless spellings,
// each a new entry of the verification cache.
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
/** users.public_id as PostgreSQL prints a uuid */
const PUBLIC_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
// iss and aud are required because they are checked (as jwtVerify adds them)
const REQUIRED_CLAIMS = ['iss', 'aud', 'sub', 'sid', 'jti', 'iat', 'exp'] as const
const INVALID = Object.freeze({ ok: false, code: 'invalid' } as const)
const EXPIRED = Object.freeze({ ok: false, code: 'expired' } as const)
const MALFORMED = Object.freeze({ ok: false, code: 'malformed' } as const)
const UNKNOWN_KEY = Object.freeze({ ok: false, code: 'unknown_key' } as const)
// the claims set as jwtVerify reads it: UTF-8 that is not well formed is refused, not replaced
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** `typ`, when present, names an access token (RFC 9068 section 4): no other JWT of ours passes as one. */
const typIsAccess = (typ: unknown) => {
  if (typeof typ !== 'string') return false
  const lower = typ.toLowerCase()
  return lower === ACCESS_TYP || lower === `application/${ACCESS_TYP}`
}

/**
 * The claims of a signature-checked payload against the settings and the clock: jwtVerify's rules
 * with our options (required claims, iss, aud, iat/nbf/exp types, nbf and exp by the IAM clock),
 * then the shapes we rely on. Run on every verification, cached signature or not.
 */
function checkClaims(payload: Readonly<Record<string, unknown>>, settings: AccessTokenSettings, now: number): VerifyResult {
  for (const claim of REQUIRED_CLAIMS) if (!Object.hasOwn(payload, claim)) return INVALID
  const { aud } = payload
  if (payload.iss !== settings.issuer) return INVALID
  if (!(aud === settings.audience || (Array.isArray(aud) && aud.includes(settings.audience)))) return INVALID
  const seconds = Math.floor(now / 1000)
  if (typeof payload.iat !== 'number') return INVALID
  if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > seconds)) return INVALID
  if (typeof payload.exp !== 'number') return INVALID
  if (payload.exp <= seconds) return EXPIRED
  if (
    typeof payload.sub !== 'string' ||
    !PUBLIC_ID.test(payload.sub) ||
    typeof payload.sid !== 'string' ||
    typeof payload.jti !== 'string' ||
    typeof payload.visitor !== 'string' ||
    !isStringArray(payload.roles)
  ) {
    return MALFORMED
  }
  return { ok: true, payload: payload as AccessPayload }
}

/** The protected header (the text before the first dot), unauthenticated: only to pick the key. */
function headerOf(token: string): ProtectedHeaderParameters | undefined {
  const dot = token.indexOf('.')
  if (dot <= 0) return undefined
  try {
    return decodeProtectedHeader({ protected: token.slice(0, dot) })
  } catch {
    return undefined
  }
}

/**
 * The key named by `kid` (from our ring only), the header rules jose leaves to the application,
 * then the JWS through jose's compactVerify with the algorithm pinned: the payload when all hold.
 * jose accepts a `crit` naming `b64` (RFC 7797); we never issue one, so any `crit` or `b64` fails.
 */
async function verifySignature(ring: KeyRing, token: string): Promise<SignedToken | VerifyResult> {
  const header = headerOf(token)
  if (!header || typeof header.kid !== 'string') return MALFORMED
  const key = ring.verifiers.get(header.kid)
  if (!key) return UNKNOWN_KEY
  if (!COMPACT_JWS.test(token) || 'crit' in header || 'b64' in header) return INVALID
  if (header.typ !== undefined && !typIsAccess(header.typ)) return INVALID
  const jws = await compactVerify(token, key, { algorithms: [ACCESS_TOKEN_ALG] }).catch((error: unknown) => {
    // jose's errors are the token's faults; anything else (a key the ring should never hold) is a bug
    if (error instanceof errors.JOSEError) return undefined
    throw error
  })
  if (!jws) return INVALID
  let payload: unknown
  try {
    payload = JSON.parse(strictUtf8.decode(jws.payload))
  } catch {
    return INVALID
  }
  if (!isObject(payload)) return INVALID
  return { kid: header.kid, key, payload }
}

/**
 * Verifies signature, alg, iss, aud, exp and the claim shapes we rely on. With `verified` (the
 * instance's cache, token-service.ts), a token whose signature verified before skips only the
 * signature, and only while its kid still names the same key in `ring`.
 */
export async function verifyAccessToken(
  ring: KeyRing,
  settings: AccessTokenSettings,
  token: string,
  now: number,
  verified?: VerifiedTokens,
): Promise<VerifyResult> {
  const cached = verified?.get(token)
  if (cached && ring.verifiers.get(cached.kid) === cached.key) return checkClaims(cached.payload, settings, now)
  const signed = await verifySignature(ring, token)
  if ('ok' in signed) return signed
  verified?.remember(token, signed)
  return checkClaims(signed.payload, settings, now)
}
