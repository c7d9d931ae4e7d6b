/**
 * TOTP secrets at rest: AES-256-GCM under the first key of secrets.totpKeys, stored as
 * `<keyId>.<iv>.<tag>.<ciphertext>`. Every configured key opens, so an operator rotates by putting
 * a new key first and keeping the old ones until every secret was re-sealed or removed. The user id
 * is the additional data: a sealed secret copied to another account's row does not open there.
 */
import { openAesGcm, sealAesGcm } from '../../../lib/aead'

export interface TotpKey {
  id: string
  /** 32 bytes, base64url */
  key: string
}

const aadOf = (userId: number) => `totp:${userId}`
const keyBytes = (key: TotpKey) => Buffer.from(key.key, 'base64url')

export function sealTotpSecret(keys: readonly TotpKey[], userId: number, secretBase32: string): string {
  const current = keys[0]
  // boot fills a dev key in the dev profile and production refuses to start without one
  if (!current) throw new Error('secrets.totpKeys is not configured')
  return `${current.id}.${sealAesGcm(keyBytes(current), secretBase32, aadOf(userId))}`
}

/** The base32 secret, or null when no configured key opens it (key removed, row altered or moved). */
export function openTotpSecret(keys: readonly TotpKey[], userId: number, sealed: string): string | null {
  const dot = sealed.indexOf('.')
  const key = keys.find((k) => k.id === sealed.slice(0, dot))
  return key ? openAesGcm(keyBytes(key), sealed.slice(dot + 1), aadOf(userId)) : null
}
