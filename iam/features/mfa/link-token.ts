/**
 * Magic-link crypto, pure: the short-lived HS256 JWT (purpose, subject `<PURPOSE>_<visitor>`, jti),
 * the `random` companion and the link URL. The JWT alone is not enough to use a link: the row
 * keyed by its jti holds the SHA-256 of `random`, so a leaked token without the full URL is inert.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { errors, jwtVerify, SignJWT } from 'jose'

export interface LinkClaims {
  purpose: string
  /** `<purpose>_<visitor>` */
  subject: string
  jti: string
  /** ms since epoch */
  expiresAt: number
}

export interface LinkParams {
  token: string
  random: string
  reason: string
  visitor: string
}

const ISSUER = 'iam:magic-link'
const key = (secret: string) => new TextEncoder().encode(secret)

/** The subject a link of `purpose` for `visitor` must carry. */
export const linkSubject = (purpose: string, visitor: string) => `${purpose}_${visitor}`

/** 32 bytes from the CSPRNG: 256 bits, unguessable even with the JWT in hand. */
export const createRandom = (): string => randomBytes(32).toString('base64url')

export const hashRandom = (random: string): string => createHash('sha256').update(random, 'utf8').digest('hex')

/** Constant-time equality of two hex digests (equal length by construction; unequal => false). */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8')
  const y = Buffer.from(b, 'utf8')
  return x.length === y.length && timingSafeEqual(x, y)
}

export async function signLinkToken(
  secret: string,
  input: { purpose: string; visitor: string; expiresInMs: number; now: number; jti?: string },
): Promise<{ token: string; claims: LinkClaims }> {
  const jti = input.jti ?? randomUUID()
  const iat = Math.floor(input.now / 1000)
  // exp in whole seconds, rounded up so the token never dies before the row does
  const exp = Math.ceil((input.now + input.expiresInMs) / 1000)
  const subject = linkSubject(input.purpose, input.visitor)
  const token = await new SignJWT({ purpose: input.purpose })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(subject)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key(secret))
  return { token, claims: { purpose: input.purpose, subject, jti, expiresAt: input.now + input.expiresInMs } }
}

export type TokenCheck = { ok: true; claims: LinkClaims } | { ok: false; code: 'invalid' | 'expired' }

/** Verifies signature (HS256 only), issuer and expiry at `now`. */
export async function verifyLinkToken(secret: string, token: string, now: number): Promise<TokenCheck> {
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      currentDate: new Date(now),
      requiredClaims: ['jti', 'sub', 'exp'],
    })
    if (typeof payload.purpose !== 'string' || !payload.jti || !payload.sub || !payload.exp) return { ok: false, code: 'invalid' }
    return { ok: true, claims: { purpose: payload.purpose, subject: payload.sub, jti: payload.jti, expiresAt: payload.exp * 1000 } }
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { ok: false, code: 'expired' }
    return { ok: false, code: 'invalid' }
  }
}

/**
 * Checks the URL's parameters against the verified claims: the reason names the purpose and the
 * subject binds the visitor named in the URL: a link made for one visitor does not verify for
 * another.
 */
export function paramsMatchClaims(params: LinkParams, claims: LinkClaims): boolean {
  return claims.purpose === params.reason && claims.subject === linkSubject(claims.purpose, params.visitor)
}

/** `<domain><path>?token&random&reason&visitor`. */
export function buildLinkUrl(domain: string, path: string, params: LinkParams): string {
  const url = new URL(path, domain)
  url.search = new URLSearchParams({ token: params.token, random: params.random, reason: params.reason, visitor: params.visitor }).toString()
  return url.toString()
}
