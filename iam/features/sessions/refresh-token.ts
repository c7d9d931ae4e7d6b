/**
 * Refresh tokens: 32 random bytes (256 bits) as base64url; only their SHA-256 is stored, so a
 * database read gives nothing that works as a cookie. A presented value must have the exact shape
 * of a raw token: a 64-hex hash sent as the cookie is refused before any lookup.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const RAW_SHAPE = /^[A-Za-z0-9_-]{43}$/

export function newRefreshToken(): string {
  return randomBytes(32).toString('base64url')
}

export function isRefreshTokenShape(value: unknown): value is string {
  return typeof value === 'string' && RAW_SHAPE.test(value)
}

export function hashRefreshToken(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex')
}

/** SHA-256 hex of any string (the session cookie as the anomaly key, DESIGN 4). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex')
}

// The grace-window pair holds live tokens: it is sealed under a key derived from the old raw token,
// so the shared store alone cannot produce them (only a holder of the old token can open it).
const sealKey = (rawOld: string) => createHash('sha256').update(`grace-pair:${rawOld}`, 'utf8').digest()

// GCM parameters: a 96-bit IV (NIST SP 800-38D §8.2) and the full 128-bit tag. Node's decipher
// accepts a shorter tag unless authTagLength is fixed, and a 4-byte tag is forgeable by brute force.
const GCM_IV_BYTES = 12
const GCM_TAG_BYTES = 16

/** AES-256-GCM seal of `value` under the old refresh token: `<iv>.<tag>.<ciphertext>` (base64url). */
export function sealForToken(rawOld: string, value: unknown): string {
  const iv = randomBytes(GCM_IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', sealKey(rawOld), iv, { authTagLength: GCM_TAG_BYTES })
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.')
}

/** Opens a sealed value; null when it was sealed under another token, altered or its tag is not 16 bytes. */
export function openForToken<T>(rawOld: string, sealed: string): T | null {
  const parts = sealed.split('.')
  if (parts.length !== 3) return null
  const [iv, tag, body] = parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer]
  if (iv.length !== GCM_IV_BYTES || tag.length !== GCM_TAG_BYTES) return null
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(rawOld), iv, { authTagLength: GCM_TAG_BYTES })
    decipher.setAuthTag(tag)
    return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as T
  } catch {
    return null
  }
}
