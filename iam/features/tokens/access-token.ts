/**
 * Access tokens: short-lived EdDSA JWTs. Verification pins the algorithm, issuer and audience
 * (RFC 8725 §3.1, §3.9) and picks the key by `kid` from our own ring only; a token naming a key
 * we do not hold, or an algorithm other than EdDSA (none, HS256 with the public key ...), fails.
 */
import { KeyObject, randomUUID, sign as signWith, verify as verifySignature } from 'node:crypto'
import type { CryptoKey, JWTPayload } from 'jose'
import { ACCESS_TOKEN_ALG, type KeyRing } from './signing-keys'

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

// Signing runs on every sign-in and every refresh (see docs/performance.md), so it does not go through jose's
// SignJWT either: the builder clones the claims, WebCrypto normalises the algorithm and runs the
// Ed25519 job on the libuv pool behind promise hops: 85-100 us of CPU per token in isolation, 16 %
// of the IAM's CPU per refresh under load (docs/performance.md). node:crypto's sign with the
// ring key's KeyObject is one synchronous call (47-58 us), and the protected header is the same
// text for every token of a key.
const headerSegments = new WeakMap<CryptoKey, string>()

/** base64url of the protected header `{ alg, kid, typ }` (jose's order), made once per ring key. */
function headerSegmentOf(ring: KeyRing): string {
  let segment = headerSegments.get(ring.current.privateKey)
  if (segment === undefined) {
    segment = Buffer.from(JSON.stringify({ alg: ACCESS_TOKEN_ALG, kid: ring.current.kid, typ: ACCESS_TYP })).toString('base64url')
    headerSegments.set(ring.current.privateKey, segment)
  }
  return segment
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
  const payload = {
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
  }
  return { token: signPayload(ring, payload), jti, accessIat: now, expiresInMs }
}

/** A compact JWS of `payload` with the ring's current key (the header of every access token). */
function signPayload(ring: KeyRing, payload: Record<string, unknown>): string {
  const input = `${headerSegmentOf(ring)}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
  const signature = signWith(null, Buffer.from(input), keyObjectOf(ring.current.privateKey))
  return `${input}.${signature.toString('base64url')}`
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
export function signApiAccessToken(ring: KeyRing, claims: ApiAccessClaims, now: number): string {
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

// Verification runs on every signed-in request (see docs/performance.md), so it does not go through jose's
// jwtVerify: WebCrypto's Ed25519 verify is a job on the libuv pool plus promise hops, where
// node:crypto's verify with a KeyObject is one synchronous call. The checks are jwtVerify's with our
// options (alg pinned to EdDSA, kid from our ring, iss, aud, exp/nbf/iat types and times by the IAM
// clock, the required claims), plus: no `crit`/`b64` header (we never issue them) and `typ`, when
// present, must be at+jwt (RFC 9068) so no other JWT of ours passes as an access token.

const SEGMENT = /^[A-Za-z0-9_-]+$/
/** users.public_id as PostgreSQL prints a uuid */
const PUBLIC_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ACCESS_TYP = 'at+jwt'
// iss and aud are required because they are checked (as jwtVerify adds them)
const REQUIRED_CLAIMS = ['iss', 'aud', 'sub', 'sid', 'jti', 'iat', 'exp'] as const
const INVALID = Object.freeze({ ok: false, code: 'invalid' } as const)
const EXPIRED = Object.freeze({ ok: false, code: 'expired' } as const)
const MALFORMED = Object.freeze({ ok: false, code: 'malformed' } as const)

const keyObjects = new WeakMap<CryptoKey, KeyObject>()

/** The node:crypto KeyObject of a ring key, made once per key. */
function keyObjectOf(key: CryptoKey): KeyObject {
  let keyObject = keyObjects.get(key)
  if (!keyObject) {
    keyObject = KeyObject.from(key as Parameters<typeof KeyObject.from>[0])
    keyObjects.set(key, keyObject)
  }
  return keyObject
}

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

const typIsAccess = (typ: unknown) => {
  if (typeof typ !== 'string') return false
  const lower = typ.toLowerCase()
  return lower === ACCESS_TYP || lower === `application/${ACCESS_TYP}`
}

/** The claims of a signature-checked payload against the settings and the clock (jwtVerify's rules, then our shapes). */
function checkClaims(payload: Record<string, unknown>, settings: AccessTokenSettings, now: number): VerifyResult {
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

// Tokens whose signature and header passed, by their exact text: a browser sends the same access
// token for its whole life, and the signature is a pure function of the text and the key. A hit is
// only the signature: the key must still be the ring's key for its kid, and the claims (exp above
// all) are checked again against the clock every time; the session is still read on every request,
// so a revoked session fails at once. Only tokens we signed get in, at most SIGNATURE_CACHE_MAX of
// them (about 1 KB each), oldest evicted first.
const SIGNATURE_CACHE_MAX = 5000
type Signed = { kid: string; key: CryptoKey; payload: Record<string, unknown> }
const signedTokens = new Map<string, Signed>()

function remember(token: string, signed: Signed): void {
  if (signedTokens.size >= SIGNATURE_CACHE_MAX) signedTokens.delete(signedTokens.keys().next().value!)
  // frozen: every request holding this token shares the object (req.user.payload)
  if (Array.isArray(signed.payload.roles)) Object.freeze(signed.payload.roles)
  signedTokens.set(token, { ...signed, payload: Object.freeze(signed.payload) })
}

/** The header, kid key and signature of a compact JWS; the payload when all three hold. */
function verifySigned(ring: KeyRing, token: string): Signed | VerifyResult {
  const first = token.indexOf('.')
  const second = first < 0 ? -1 : token.indexOf('.', first + 1)
  const header = first > 0 ? decodeJson(token.slice(0, first)) : undefined
  if (!isObject(header) || typeof header.kid !== 'string') return MALFORMED
  const key = ring.verifiers.get(header.kid)
  if (!key) return { ok: false, code: 'unknown_key' }
  if (second < 0 || token.indexOf('.', second + 1) >= 0) return INVALID
  const [headerPart, payloadPart, signaturePart] = [token.slice(0, first), token.slice(first + 1, second), token.slice(second + 1)]
  if (!SEGMENT.test(headerPart) || !SEGMENT.test(payloadPart) || !SEGMENT.test(signaturePart)) return INVALID
  if (header.alg !== ACCESS_TOKEN_ALG || 'crit' in header || 'b64' in header) return INVALID
  if (header.typ !== undefined && !typIsAccess(header.typ)) return INVALID
  let valid: boolean
  try {
    valid = verifySignature(null, Buffer.from(token.slice(0, second)), keyObjectOf(key), Buffer.from(signaturePart, 'base64url'))
  } catch {
    valid = false
  }
  if (!valid) return INVALID
  const payload = decodeJson(payloadPart)
  if (!isObject(payload)) return INVALID
  return { kid: header.kid, key, payload }
}

/** Verifies signature, alg, iss, aud, exp and the claim shapes we rely on. */
export async function verifyAccessToken(
  ring: KeyRing,
  settings: AccessTokenSettings,
  token: string,
  now: number,
): Promise<VerifyResult> {
  const cached = signedTokens.get(token)
  if (cached && ring.verifiers.get(cached.kid) === cached.key) return checkClaims(cached.payload, settings, now)
  const signed = verifySigned(ring, token)
  if ('ok' in signed) return signed
  remember(token, signed)
  return checkClaims(signed.payload, settings, now)
}
