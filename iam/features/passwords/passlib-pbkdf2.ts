/**
 * Python passlib's PBKDF2 hashes (passlib.hash.pbkdf2_sha256, pbkdf2_sha512, pbkdf2_sha1), the
 * PBKDF2 form most Python applications export: `$pbkdf2-sha256$<rounds>$<salt>$<checksum>`,
 * `$pbkdf2-sha512$...`, and `$pbkdf2$...` for SHA-1. Not a PHC string: the rounds are a bare
 * decimal number (PHC writes `i=`), and salt and checksum are in passlib's "adapted base64", the
 * standard alphabet with `.` for `+` and no padding. Read here into the values of the PHC form
 * (imported-hashes.ts stores it as `$pbkdf2-<digest>$i=...`, nothing recomputed). The rules are
 * passlib 1.7's own (passlib/handlers/pbkdf2.py, passlib/utils/handlers.py parse_mc3):
 *
 * - rounds: decimal, no leading zero (passlib refuses zero-padded rounds), 1 to 2^32 - 1;
 * - salt: raw bytes, at most 1024 (passlib's max_salt_size); passlib would take an empty one,
 *   which no hash it makes has, and PHC has no form for it: refused;
 * - checksum: exactly the digest's size (20, 32 or 64 bytes), as passlib requires.
 *
 * passlib's decoder also takes `+` for `.` (ab64_decode), so this one does; `=` padding, `-` and
 * `_` are not its alphabet.
 */

type PasslibDigest = 'sha1' | 'sha256' | 'sha512'

export type PasslibPbkdf2 = { ok: true; digest: PasslibDigest; rounds: number; salt: Buffer; checksum: Buffer } | { ok: false; reason: string }

/** passlib's ident of each digest, and the checksum size it writes (the digest's output). */
const IDENTS: ReadonlyArray<{ ident: string; digest: PasslibDigest; checksumBytes: number }> = [
  { ident: '$pbkdf2$', digest: 'sha1', checksumBytes: 20 },
  { ident: '$pbkdf2-sha256$', digest: 'sha256', checksumBytes: 32 },
  { ident: '$pbkdf2-sha512$', digest: 'sha512', checksumBytes: 64 },
]

const ROUNDS = /^[1-9][0-9]*$/
/** 2^32 - 1: passlib's max_rounds; past it, no passlib hash */
const ROUNDS_MAX = 0xffff_ffff
const SALT_MAX_BYTES = 1024
const ADAPTED_BASE64 = /^[A-Za-z0-9./+]+$/

/**
 * Whether `hash` is in passlib's form rather than PHC's: one of passlib's idents, not followed by
 * PHC's `i=`. (`$pbkdf2$` is passlib's alone: PHC PBKDF2 ids name their digest.)
 */
export function isPasslibPbkdf2(hash: string): boolean {
  const entry = IDENTS.find(({ ident }) => hash.startsWith(ident))
  return entry !== undefined && !hash.startsWith('i=', entry.ident.length)
}

/** The bytes of an adapted base64 field, or null when it is not one (alphabet, or a length no base64 has). */
function adaptedBase64(field: string): Buffer | null {
  if (!ADAPTED_BASE64.test(field) || field.length % 4 === 1) return null
  return Buffer.from(field.replace(/\./g, '+'), 'base64')
}

/** A passlib PBKDF2 hash, read; or why it is not one. The cost caps are the caller's (imported-hash-caps.ts). */
export function parsePasslibPbkdf2(hash: string): PasslibPbkdf2 {
  const entry = IDENTS.find(({ ident }) => hash.startsWith(ident))
  if (!entry) return { ok: false, reason: 'not a passlib pbkdf2 hash' }
  const name = `passlib ${entry.ident.slice(1, -1)}`
  const parts = hash.slice(entry.ident.length).split('$')
  if (parts.length !== 3) return { ok: false, reason: `${name} needs rounds, salt and checksum: ${entry.ident}<rounds>$<salt>$<checksum>` }
  const [roundsText, saltText, checksumText] = parts as [string, string, string]
  if (!ROUNDS.test(roundsText)) return { ok: false, reason: `${name} rounds must be a positive decimal number without leading zeros` }
  const rounds = Number(roundsText)
  if (rounds > ROUNDS_MAX) return { ok: false, reason: `${name} rounds are past passlib's maximum of ${ROUNDS_MAX}` }
  if (!saltText) return { ok: false, reason: `${name} has no salt` }
  const salt = adaptedBase64(saltText)
  if (!salt?.length) return { ok: false, reason: `${name} salt is not adapted base64 (A-Z a-z 0-9 . /, no padding)` }
  if (salt.length > SALT_MAX_BYTES) return { ok: false, reason: `${name} salt is ${salt.length} bytes, past passlib's maximum of ${SALT_MAX_BYTES}` }
  const checksum = adaptedBase64(checksumText)
  if (!checksum?.length) return { ok: false, reason: `${name} checksum is not adapted base64 (A-Z a-z 0-9 . /, no padding)` }
  if (checksum.length !== entry.checksumBytes) return { ok: false, reason: `${name} checksum is ${checksum.length} bytes; ${entry.digest} makes ${entry.checksumBytes}` }
  return { ok: true, digest: entry.digest, rounds, salt, checksum }
}
