/**
 * API token formats (docs/api-tokens.md).
 *
 * Raw token: `<prefix>_<payload>_<checksum>`. The payload is 32 CSPRNG bytes (256 bits of entropy,
 * far beyond guessing) in fixed-width base62; the checksum is CRC-32 of the payload text in 6
 * base62 characters, so scanners and this service reject typos and noise offline, before any
 * lookup. Only SHA-256 of the whole raw token is stored: a database leak yields no usable token,
 * and because the payload is high-entropy a plain (unsalted) hash is enough and keeps lookups indexed.
 *
 * Public identifier: `<16 random bytes base62>_<checksum>`, a non-secret handle for management
 * actions; its checksum lets the manager refuse forged identifiers without a query.
 */
import { hash, timingSafeEqual } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { PREFIX_PATTERN } from '../../contract/api-token-inputs'
import { base62Width, encodeBase62, encodeBase62Integer } from './base62'

export const DEFAULT_PREFIX = 'api'
const PAYLOAD_BYTES = 32
const PUBLIC_ID_BYTES = 16
const CHECKSUM_WIDTH = 6
const PAYLOAD_WIDTH = base62Width(PAYLOAD_BYTES)
const PUBLIC_ID_WIDTH = base62Width(PUBLIC_ID_BYTES)

const RAW_TOKEN_PATTERN = new RegExp(
  `^([A-Za-z0-9-]{1,16})_([0-9A-Za-z]{${PAYLOAD_WIDTH}})_([0-9A-Za-z]{${CHECKSUM_WIDTH}})$`,
)
const PUBLIC_ID_PATTERN = new RegExp(`^([0-9A-Za-z]{${PUBLIC_ID_WIDTH}})_([0-9A-Za-z]{${CHECKSUM_WIDTH}})$`)
const SHA256_HEX = /^[0-9a-f]{64}$/
/** Longest raw token: a 16-character prefix, two separators, payload and checksum. */
export const MAX_RAW_TOKEN_LENGTH = 16 + 2 + PAYLOAD_WIDTH + CHECKSUM_WIDTH

export type RawTokenParts = { prefix: string; payload: string; checksum: string }

const randomBytes = (length: number): Uint8Array => crypto.getRandomValues(new Uint8Array(length))

/** The 6-character base62 CRC-32 (IEEE, as zlib and secret scanners compute it) of `text`'s UTF-8 bytes. */
export function checksumOf(text: string): string {
  return encodeBase62Integer(BigInt(crc32(text)), CHECKSUM_WIDTH)
}

/** Timing-safe equality of two checksums (equal length is guaranteed by the patterns). */
function sameChecksum(provided: string, expected: string): boolean {
  const a = Buffer.from(provided, 'latin1')
  const b = Buffer.from(expected, 'latin1')
  return a.length === b.length && timingSafeEqual(a, b)
}

export function isValidPrefix(prefix: unknown): prefix is string {
  return typeof prefix === 'string' && PREFIX_PATTERN.test(prefix)
}

/** A new raw token under `prefix` (which must satisfy isValidPrefix). */
export function generateRawToken(prefix: string = DEFAULT_PREFIX): string {
  if (!isValidPrefix(prefix)) throw new RangeError('invalid token prefix')
  const payload = encodeBase62(randomBytes(PAYLOAD_BYTES))
  return `${prefix}_${payload}_${checksumOf(payload)}`
}

/** Splits and checks a raw token; null when a component is missing, malformed or the checksum differs. */
export function parseRawToken(raw: unknown): RawTokenParts | null {
  if (typeof raw !== 'string' || raw.length > MAX_RAW_TOKEN_LENGTH) return null
  const match = RAW_TOKEN_PATTERN.exec(raw)
  if (!match) return null
  const [, prefix, payload, checksum] = match as unknown as [string, string, string, string]
  return sameChecksum(checksum, checksumOf(payload)) ? { prefix, payload, checksum } : null
}

/** A new public identifier. */
export function generatePublicIdentifier(): string {
  const random = encodeBase62(randomBytes(PUBLIC_ID_BYTES))
  return `${random}_${checksumOf(random)}`
}

/** True when `value` is shaped like a public identifier and its checksum matches. */
export function isValidPublicIdentifier(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > PUBLIC_ID_WIDTH + 1 + CHECKSUM_WIDTH) return false
  const match = PUBLIC_ID_PATTERN.exec(value)
  if (!match) return false
  return sameChecksum(match[2]!, checksumOf(match[1]!))
}

/** SHA-256 hex of the whole raw token: the only form that is stored. */
export function hashToken(raw: string): string {
  // one-shot hash(): a Hash object costs about three times as much, and verification hashes on every request
  return hash('sha256', raw, 'hex')
}

export function isSha256Hex(value: unknown): value is string {
  return typeof value === 'string' && SHA256_HEX.test(value)
}

/**
 * The stored hash for an input the helpers accept "raw or hashed": a SHA-256 hex string is taken
 * as the hash, a well-formed raw token is hashed, anything else is null (never reaches SQL).
 */
export function storedHashOf(rawOrHashed: unknown): string | null {
  if (isSha256Hex(rawOrHashed)) return rawOrHashed
  return parseRawToken(rawOrHashed) ? hashToken(rawOrHashed as string) : null
}
