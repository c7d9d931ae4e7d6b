/**
 * Access tokens: short-lived EdDSA JWTs. Verification pins the algorithm, issuer and audience
 * (RFC 8725 §3.1, §3.9) and picks the key by `kid` from our own ring only; a token naming a key
 * we do not hold, or an algorithm other than EdDSA (none, HS256 with the public key ...), fails.
 */
import { randomUUID } from 'node:crypto'
import { SignJWT, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose'
import { ACCESS_TOKEN_ALG, type KeyRing } from './signing-keys'

export interface AccessClaims {
  userId: number
  sessionId: string
  visitor: string
  roles: string[]
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
  iat: number
  exp: number
}

export type VerifyResult =
  | { ok: true; payload: AccessPayload }
  | { ok: false; code: 'expired' | 'invalid' | 'unknown_key' | 'malformed' }

/** Signs a token for one session; `iat` in seconds as RFC 7519 wants, `accessIat` in ms for the body. */
export async function signAccessToken(
  ring: KeyRing,
  settings: AccessTokenSettings,
  claims: AccessClaims,
  now: number,
): Promise<{ token: string; jti: string; accessIat: number; expiresInMs: number }> {
  const jti = randomUUID()
  const iat = Math.floor(now / 1000)
  const token = await new SignJWT({ sid: claims.sessionId, visitor: claims.visitor, roles: claims.roles })
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, kid: ring.current.kid, typ: 'at+jwt' })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(String(claims.userId))
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(Math.floor((now + settings.expiresInMs) / 1000))
    .sign(ring.current.privateKey)
  return { token, jti, accessIat: now, expiresInMs: settings.expiresInMs }
}

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string')

/** The `kid` of a compact JWS, or null when the header is unreadable. */
export function readKid(token: string): string | null {
  try {
    const header = decodeProtectedHeader(token)
    return typeof header.kid === 'string' ? header.kid : null
  } catch {
    return null
  }
}

/** Verifies signature, alg, iss, aud, exp and the claim shapes we rely on. */
export async function verifyAccessToken(
  ring: KeyRing,
  settings: AccessTokenSettings,
  token: string,
  now: number,
): Promise<VerifyResult> {
  const kid = readKid(token)
  if (!kid) return { ok: false, code: 'malformed' }
  const key = ring.verifiers.get(kid)
  if (!key) return { ok: false, code: 'unknown_key' }
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: settings.issuer,
      audience: settings.audience,
      currentDate: new Date(now),
      requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
    })
    if (
      typeof payload.sub !== 'string' ||
      !/^[1-9][0-9]{0,15}$/.test(payload.sub) ||
      typeof payload.sid !== 'string' ||
      typeof payload.jti !== 'string' ||
      typeof payload.visitor !== 'string' ||
      !isStringArray(payload.roles)
    ) {
      return { ok: false, code: 'malformed' }
    }
    return { ok: true, payload: payload as AccessPayload }
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { ok: false, code: 'expired' }
    return { ok: false, code: 'invalid' }
  }
}
