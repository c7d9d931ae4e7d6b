/**
 * Base62 ([0-9A-Za-z]) with a fixed width per input size, so every token of a kind has the same
 * length and a strict pattern can reject malformed input before any lookup.
 */

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

// BigInt() calls, not `0n` literals: the IAM bundle's esbuild target predates them.
const ZERO = BigInt(0)
const EIGHT = BigInt(8)
const SIXTY_TWO = BigInt(62)

/** Characters needed for `byteLength` bytes: ceil(8n / log2 62). 32 bytes -> 43, 16 -> 22, 4 -> 6. */
export function base62Width(byteLength: number): number {
  return Math.ceil((byteLength * 8) / Math.log2(62))
}

/** Encodes an unsigned integer, left-padded with "0" to `width` characters. */
export function encodeBase62Integer(value: bigint, width: number): string {
  if (value < ZERO) throw new RangeError('base62 encodes unsigned values only')
  let out = ''
  let rest = value
  while (rest > ZERO) {
    out = BASE62_ALPHABET[Number(rest % SIXTY_TWO)]! + out
    rest /= SIXTY_TWO
  }
  if (out.length > width) throw new RangeError(`value does not fit in ${width} base62 characters`)
  return out.padStart(width, '0')
}

/** Encodes bytes (big-endian) at the fixed width of their length. */
export function encodeBase62(bytes: Uint8Array): string {
  let value = ZERO
  for (const byte of bytes) value = (value << EIGHT) | BigInt(byte)
  return encodeBase62Integer(value, base62Width(bytes.length))
}
