/**
 * Redis Cluster's key-to-slot mapping (Redis Cluster specification, "Keys distribution model" and
 * "Hash tags"): CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0) of the key's UTF-8 bytes,
 * modulo 16384; when the key holds a `{` followed later by a `}` with something between them, only
 * that something is hashed. A script or a multi-key command is accepted by a Cluster only when all
 * its keys map to one slot (else CROSSSLOT), so atomic-redis.ts asks this before sending one.
 * tests/unit/store-hash-slots.test.ts holds it to ioredis's own mapping (cluster-key-slot).
 */

export const HASH_SLOTS = 16384

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256)
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    table[byte] = crc
  }
  return table
})()

function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!
  return crc
}

/** The part of `key` Redis hashes: the first `{...}` when non-empty, else the whole key. */
export function hashedPart(key: string): string {
  const open = key.indexOf('{')
  if (open < 0) return key
  const close = key.indexOf('}', open + 1)
  return close > open + 1 ? key.slice(open + 1, close) : key
}

/** The Cluster slot (0..16383) of `key`. */
export function hashSlot(key: string): number {
  return crc16(Buffer.from(hashedPart(key), 'utf8')) % HASH_SLOTS
}

/** True when every key maps to one slot (an empty list is one slot too). */
export function sameSlot(keys: readonly string[]): boolean {
  if (keys.length < 2) return true
  const first = hashSlot(keys[0]!)
  return keys.every((key, i) => i === 0 || hashSlot(key) === first)
}

/** Indexes of `keys` grouped by slot, in first-seen order (for splitting one step into per-slot ones). */
export function groupBySlot(keys: readonly string[]): number[][] {
  const groups = new Map<number, number[]>()
  keys.forEach((key, i) => {
    const slot = hashSlot(key)
    const group = groups.get(slot)
    if (group) group.push(i)
    else groups.set(slot, [i])
  })
  return [...groups.values()]
}
