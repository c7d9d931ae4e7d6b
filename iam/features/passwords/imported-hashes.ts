/**
 * Password hashes brought in from another system (users:import), verified with their own algorithm
 * until the owner's next right password replaces them with our Argon2id (hasher.ts answers
 * `needsRehash` for every one of them).
 *
 * Stored in users.password_hash as `import:<kind>:<hash>`: the string says by itself how it is
 * verified, so no second column can disagree with it, the compare-and-set that replaces it
 * (`WHERE password_hash = <old>`) covers the format too, and no imported hash can be taken for one
 * of ours (an imported `$argon2id$` string must be verified without our pepper). Kinds:
 *
 * - `argon2`: a PHC string `$argon2id$` / `$argon2i$` / `$argon2d$` (@node-rs/argon2's verifySync)
 * - `bcrypt`: `$2a$`, `$2b$`, `$2y$` (bcryptjs's compareSync, which compares in constant time)
 * - `scrypt`: PHC `$scrypt$ln=,r=,p=$salt$hash` (node:crypto scryptSync, timingSafeEqual)
 * - `pbkdf2`: PHC `$pbkdf2-sha256$i=$salt$hash` (or -sha512, -sha1; node:crypto pbkdf2Sync,
 *   timingSafeEqual); Keycloak's pbkdf2 credentials and passlib's PBKDF2 hashes (passlib-pbkdf2.ts)
 *   are rewritten to this form at import, nothing recomputed
 * - `firebase-scrypt`: `<salt>$<hash>` in base64, Firebase's modified scrypt with the project's
 *   parameters from config (import.firebase; the firebase-scrypt package)
 *
 * What a hash may cost to verify is capped (imported-hash-caps.ts): past a cap it is refused at
 * import, naming the parameter, and a stored one (imported before the caps) is a wrong password,
 * never computed. Verification runs on the worker pool of hash-pool.ts with a deadline,
 * never on the event loop or libuv's pool that every other sign-in uses.
 */
import { deserialize, serialize, type PhcObject } from '@phc/format'
import { argon2OverCap, bcryptOverCap, overCapReason, pbkdf2OverCap, scryptOverCap, type OverCap } from './imported-hash-caps'
import { importedHashPool, type HashJob, type HashPool } from './hash-pool'
import { isPasslibPbkdf2, parsePasslibPbkdf2 } from './passlib-pbkdf2'

/** Firebase's project-wide hash parameters (Authentication > Users > Password hash parameters). */
export interface FirebaseScryptParams {
  signerKey: string
  saltSeparator: string
  rounds: number
  memCost: number
}

export interface ImportedHashSettings {
  firebase?: FirebaseScryptParams
}

export type ImportedKind = 'argon2' | 'bcrypt' | 'scrypt' | 'pbkdf2' | 'firebase-scrypt'
/** The source format a line used, as the import reports it. */
export type SourceFormat = ImportedKind | 'keycloak-pbkdf2' | 'passlib-pbkdf2'

const PREFIX = 'import:'

/**
 * An imported hash answered as a wrong password without a verdict from its algorithm: past its
 * caps (`over_cap`, imported before them), past the pool's deadline (`timeout`), or the pool's
 * queue full (`busy`). `fields` are for the log: never the hash or the password.
 */
export class ImportedHashRefused extends Error {
  constructor(
    readonly reason: 'over_cap' | 'timeout' | 'busy',
    message: string,
    readonly fields: Record<string, string | number>,
  ) {
    super(message)
    this.name = 'ImportedHashRefused'
  }
}

export const isImportedHash = (stored: string): boolean => stored.startsWith(PREFIX)

const BCRYPT = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

export type ParsedImport = { ok: true; stored: string; format: SourceFormat } | { ok: false; reason: string }

/** A shape's refusal: why, and the parameter over its cap when that is why. */
type Refused = { refused: string; over?: OverCap }

const fail = (reason: string): ParsedImport => ({ ok: false, reason })
const refuse = (refused: string): Refused => ({ refused })
const overCap = (kind: string, over: OverCap | null): Refused | null => (over ? { refused: overCapReason(kind, over), over } : null)
const isRefused = (shape: object): shape is Refused => 'refused' in shape
const stored = (kind: ImportedKind, hash: string, format: SourceFormat = kind): ParsedImport => ({ ok: true, stored: `${PREFIX}${kind}:${hash}`, format })

const int = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) ? value : null)

function phc(hash: string): PhcObject | null {
  try {
    return deserialize(hash)
  } catch {
    return null
  }
}

/** The salt and hash of a PHC string, when it has both. */
const saltAndHash = (parsed: PhcObject): { salt: Buffer; hash: Buffer } | null => (parsed.salt?.length && parsed.hash?.length ? { salt: parsed.salt, hash: parsed.hash } : null)

type Scrypt = { kind: 'scrypt'; N: number; r: number; p: number; maxmem: number }
type Pbkdf2Digest = 'sha1' | 'sha256' | 'sha512'
type Pbkdf2 = { kind: 'pbkdf2'; digest: Pbkdf2Digest; iterations: number }
type PhcShape = { kind: 'argon2' } | Scrypt | Pbkdf2

function scryptShape(parsed: PhcObject): Scrypt | Refused {
  const ln = int(parsed.params?.ln)
  const r = int(parsed.params?.r)
  const p = int(parsed.params?.p)
  if (ln === null || r === null || p === null) return refuse('scrypt needs the integer parameters ln, r and p')
  if (ln < 1 || r < 1 || p < 1) return refuse('scrypt parameters out of the accepted range')
  const over = overCap('scrypt', scryptOverCap(ln, r, p, parsed.hash?.length ?? 0))
  if (over) return over
  const N = 2 ** ln
  // what one run of scrypt's ROMix takes (128·N·r), with room for the rest of the call
  return { kind: 'scrypt', N, r, p, maxmem: 128 * N * r + 32 * 1024 * 1024 }
}

/**
 * PBKDF2's PRFs by PHC id. HMAC-SHA1 stays sound as PBKDF2's PRF (RFC 8018, section 5.2, names it;
 * SHA-1's collisions do not reach HMAC), and it is passlib's `$pbkdf2$`; at the caps it costs less
 * than SHA-512 does (imported-hash-caps.ts).
 */
const PBKDF2_DIGESTS = new Map<string, Pbkdf2Digest>([
  ['pbkdf2-sha1', 'sha1'],
  ['pbkdf2-sha256', 'sha256'],
  ['pbkdf2-sha512', 'sha512'],
])

function pbkdf2Shape(parsed: PhcObject): Pbkdf2 | Refused {
  const digest = PBKDF2_DIGESTS.get(parsed.id)
  if (!digest) return refuse(`unsupported PBKDF2 variant ${parsed.id}`)
  const iterations = int(parsed.params?.i)
  if (iterations === null || iterations < 1) return refuse('pbkdf2 needs the integer parameter i')
  return overCap('pbkdf2', pbkdf2OverCap(iterations, parsed.hash?.length ?? 0)) ?? { kind: 'pbkdf2', digest, iterations }
}

function argon2Shape(parsed: PhcObject): { kind: 'argon2' } | Refused {
  const m = int(parsed.params?.m)
  const t = int(parsed.params?.t)
  const p = int(parsed.params?.p)
  if (m === null || t === null || p === null) return refuse('argon2 needs the integer parameters m, t and p')
  if (m < 1 || t < 1 || p < 1) return refuse('argon2 parameters out of the accepted range')
  return overCap('argon2', argon2OverCap(m, t, p, parsed.hash?.length ?? 0)) ?? { kind: 'argon2' }
}

/** A PHC string's kind and what verifying it takes, or why it is refused. */
function phcShape(parsed: PhcObject): PhcShape | Refused {
  if (!saltAndHash(parsed)) return refuse('the PHC string needs a salt and a hash')
  if (parsed.id === 'argon2id' || parsed.id === 'argon2i' || parsed.id === 'argon2d') return argon2Shape(parsed)
  if (parsed.id === 'scrypt') return scryptShape(parsed)
  if (PBKDF2_DIGESTS.has(parsed.id)) return pbkdf2Shape(parsed)
  return refuse(`unsupported hash algorithm ${parsed.id}`)
}

function bcryptShape(hash: string): { kind: 'bcrypt' } | Refused {
  const match = BCRYPT.exec(hash)
  if (!match) return refuse('not a bcrypt hash ($2a$/$2b$/$2y$, a two-digit cost, 53 characters of salt and hash)')
  const cost = Number(match[1])
  if (cost < 4) return refuse('bcrypt cost out of the accepted range')
  return overCap('bcrypt', bcryptOverCap(cost)) ?? { kind: 'bcrypt' }
}

/** passlib's PBKDF2 hash (passlib-pbkdf2.ts) as the PHC pbkdf2 string of the same values, within the caps. */
function parsePasslib(hash: string): ParsedImport {
  const parsed = parsePasslibPbkdf2(hash)
  if (!parsed.ok) return fail(parsed.reason)
  const over = pbkdf2OverCap(parsed.rounds, parsed.checksum.length)
  // passlib calls PBKDF2's iteration count its rounds: the reason names it so
  if (over) return fail(overCapReason('pbkdf2', over.parameter === 'i' ? { ...over, parameter: 'rounds' } : over))
  const phcHash = serialize({ id: `pbkdf2-${parsed.digest}`, params: { i: parsed.rounds }, salt: parsed.salt, hash: parsed.checksum })
  const shape = pbkdf2Shape(deserialize(phcHash))
  return isRefused(shape) ? fail(shape.refused) : stored('pbkdf2', phcHash, 'passlib-pbkdf2')
}

/** A PHC string, a bcrypt hash or passlib's PBKDF2 form, as one line's `passwordHash` string. */
function parseHashString(hash: string): ParsedImport {
  if (isPasslibPbkdf2(hash)) return parsePasslib(hash)
  let shape: PhcShape | { kind: 'bcrypt' } | Refused
  if (hash.startsWith('$2')) shape = bcryptShape(hash)
  else {
    const parsed = phc(hash)
    if (!parsed) return fail('not a PHC string or a bcrypt hash')
    shape = phcShape(parsed)
  }
  return isRefused(shape) ? fail(shape.refused) : stored(shape.kind, hash)
}

/** Keycloak keeps these as JSON text inside its export; objects are taken too. */
function jsonField(value: unknown): Record<string, unknown> | null {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value)
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null
    } catch {
      return null
    }
  }
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : null
}

const base64Bytes = (value: unknown): Buffer | null => (typeof value === 'string' && BASE64.test(value) ? Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : null)

/** Keycloak's algorithms by the PHC id of the same PBKDF2: its `pbkdf2` is HMAC-SHA1 (its default before pbkdf2-sha256). */
const KEYCLOAK_ALGORITHMS = new Map([
  ['pbkdf2', 'pbkdf2-sha1'],
  ['pbkdf2-sha256', 'pbkdf2-sha256'],
  ['pbkdf2-sha512', 'pbkdf2-sha512'],
])

/** Keycloak's password credential (credentialData + secretData of its realm export) as a PHC pbkdf2 string. */
function parseKeycloak(input: Record<string, unknown>): ParsedImport {
  const credential = jsonField(input.credentialData)
  const secret = jsonField(input.secretData)
  if (!credential || !secret) return fail('a Keycloak credential needs credentialData and secretData (JSON)')
  const id = KEYCLOAK_ALGORITHMS.get(String(credential.algorithm))
  if (!id) return fail(`unsupported Keycloak algorithm ${String(credential.algorithm)}`)
  const iterations = int(credential.hashIterations)
  const salt = base64Bytes(secret.salt)
  const value = base64Bytes(secret.value)
  if (iterations === null || !salt?.length || !value?.length) return fail('a Keycloak credential needs hashIterations, salt and value')
  const hash = serialize({ id, params: { i: iterations }, salt, hash: value })
  const shape = pbkdf2Shape(deserialize(hash))
  return isRefused(shape) ? fail(shape.refused) : stored('pbkdf2', hash, 'keycloak-pbkdf2')
}

/**
 * One line's `passwordHash`, checked and put in its stored form; nothing is hashed. A string is a
 * PHC string, a bcrypt hash or a passlib PBKDF2 hash; an object names its format: `{ format: 'firebase-scrypt', hash, salt }`
 * or `{ format: 'keycloak', credentialData, secretData }`.
 */
export function parseImportedHash(input: unknown): ParsedImport {
  if (typeof input === 'string') return parseHashString(input)
  if (!input || typeof input !== 'object' || Array.isArray(input)) return fail('passwordHash must be a string or an object with a format')
  const value = input as Record<string, unknown>
  switch (value.format) {
    case 'firebase-scrypt': {
      if (!base64Bytes(value.hash)?.length || !base64Bytes(value.salt)?.length) return fail('a Firebase scrypt hash needs hash and salt in base64')
      return stored('firebase-scrypt', `${String(value.salt)}$${String(value.hash)}`)
    }
    case 'keycloak':
      return parseKeycloak(value)
    default:
      return fail('passwordHash.format must be firebase-scrypt or keycloak')
  }
}

/**
 * The job that verifies `hash` of `kind`, or null when it cannot match (a hash that does not parse:
 * a non-match, as any algorithm would answer). Throws ImportedHashRefused past a cap, and an Error
 * when it cannot be verified at all (a Firebase hash without import.firebase).
 */
function jobFor(kind: string, hash: string, password: string, settings: ImportedHashSettings): HashJob | null {
  const refused = (shape: Refused) => {
    if (!shape.over) return null
    const { parameter, value, cap, unit } = shape.over
    throw new ImportedHashRefused('over_cap', 'imported password hash over its cost caps: answered as a wrong password', { kind, parameter, value, cap, ...(unit ? { unit } : {}) })
  }
  if (kind === 'bcrypt') {
    const shape = bcryptShape(hash)
    return isRefused(shape) ? refused(shape) : { kind, hash, password }
  }
  if (kind === 'firebase-scrypt') {
    const params = settings.firebase
    if (!params) throw new Error('import.firebase is not configured')
    // the project's parameters, from config: Firebase's scrypt is N = 2^memCost, r = rounds, p = 1, a 32-byte key
    const over = overCap('firebase-scrypt', scryptOverCap(params.memCost, params.rounds, 1, 32))
    if (over) return refused(over)
    const [salt, value] = hash.split('$')
    if (!salt || !value) return null
    const { signerKey, saltSeparator, rounds, memCost } = params
    return { kind, password, salt, hash: value, params: { signerKey, saltSeparator, rounds, memCost } }
  }
  const parsed = phc(hash)
  const bytes = parsed && saltAndHash(parsed)
  if (!parsed || !bytes) return null
  const shape = phcShape(parsed)
  if (isRefused(shape)) return refused(shape)
  // the stored kind and the string's own algorithm agree for every hash the import wrote
  if (shape.kind !== kind) return null
  switch (shape.kind) {
    case 'argon2':
      return { kind: 'argon2', hash, password }
    case 'scrypt':
      return { kind: 'scrypt', password, salt: bytes.salt, expected: bytes.hash, N: shape.N, r: shape.r, p: shape.p, maxmem: shape.maxmem }
    case 'pbkdf2':
      return { kind: 'pbkdf2', password, salt: bytes.salt, expected: bytes.hash, iterations: shape.iterations, digest: shape.digest }
  }
}

/**
 * Whether `password` matches an imported hash (`import:<kind>:<hash>`), with the algorithm of the
 * system it came from, on the password exactly as typed (those systems did not normalise it),
 * on `pool`'s threads. Throws ImportedHashRefused when it answers without a verdict (past a cap,
 * the deadline or the queue bound), and an Error when the hash cannot be verified at all (a
 * Firebase hash without import.firebase, a hash its algorithm cannot read): the hasher answers
 * all of them as a wrong password.
 */
export async function verifyImportedHash(storedHash: string, password: string, settings: ImportedHashSettings, pool: HashPool = importedHashPool()): Promise<boolean> {
  const rest = storedHash.slice(PREFIX.length)
  const colon = rest.indexOf(':')
  if (colon < 0 || password.length === 0) return false
  const kind = rest.slice(0, colon)
  const job = jobFor(kind, rest.slice(colon + 1), password, settings)
  if (!job) return false
  const outcome = await pool.run(job)
  switch (outcome.type) {
    case 'done':
      return outcome.match
    case 'timeout':
      throw new ImportedHashRefused('timeout', 'imported password hash verification past its deadline: answered 503', { kind })
    case 'busy':
      throw new ImportedHashRefused('busy', 'imported password hash verifications queued past their bound: answered 503', { kind })
    case 'failed':
      throw new Error(outcome.message)
    case 'hashed':
      // a verify job is answered done or not at all: a hash here is the pool's fault
      throw new Error('the hash pool answered a verification with a hash')
  }
}
