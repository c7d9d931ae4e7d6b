/**
 * Refresh tokens: 32 random bytes (256 bits) as base64url; only their SHA-256 is stored, so a
 * database read gives nothing that works as a cookie. A presented value must have the exact shape
 * of a raw token: a 64-hex hash sent as the cookie is refused before any lookup.
 */
import { createHash, hash, randomBytes } from 'node:crypto'
import { openAesGcm, sealAesGcm } from '../../lib/aead'

const RAW_SHAPE = /^[A-Za-z0-9_-]{43}$/

export function newRefreshToken(): string {
  return randomBytes(32).toString('base64url')
}

export function isRefreshTokenShape(value: unknown): value is string {
  return typeof value === 'string' && RAW_SHAPE.test(value)
}

// one-shot hash(): every signed-in request hashes its cookie, and a Hash object costs twice as much
export function hashRefreshToken(raw: string): string {
  return hash('sha256', raw, 'hex')
}

/** SHA-256 hex of any string (the session cookie as the anomaly key). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex')
}

// The grace-window pair holds live tokens: it is sealed under a key derived from the old raw token,
// so the shared store alone cannot produce them (only a holder of the old token can open it).
const sealKey = (rawOld: string) => createHash('sha256').update(`grace-pair:${rawOld}`, 'utf8').digest()

/** AES-256-GCM seal of `value` under the old refresh token: `<iv>.<tag>.<ciphertext>` (base64url). */
export function sealForToken(rawOld: string, value: unknown): string {
  return sealAesGcm(sealKey(rawOld), JSON.stringify(value))
}

/** Opens a sealed value; null when it was sealed under another token, altered or its tag is not 16 bytes. */
export function openForToken<T>(rawOld: string, sealed: string): T | null {
  const plaintext = openAesGcm(sealKey(rawOld), sealed)
  return plaintext === null ? null : (JSON.parse(plaintext) as T)
}
