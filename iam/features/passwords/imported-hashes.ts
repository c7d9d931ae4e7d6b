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
 * - `argon2`: a PHC string `$argon2id$` / `$argon2i$` / `$argon2d$` (@node-rs/argon2's verify)
 * - `bcrypt`: `$2a$`, `$2b$`, `$2y$` (bcryptjs's compare, which compares in constant time)
 * - `scrypt`: PHC `$scrypt$ln=,r=,p=$salt$hash` (node:crypto scrypt, timingSafeEqual)
 * - `pbkdf2`: PHC `$pbkdf2-sha256$i=$salt$hash` (or -sha512; node:crypto pbkdf2, timingSafeEqual);
 *   Keycloak's pbkdf2 credentials are rewritten to this form at import, nothing recomputed
 * - `firebase-scrypt`: `<salt>$<hash>` in base64, Firebase's modified scrypt with the project's
 *   parameters from config (import.firebase; the firebase-scrypt package)
 *
 * Costs are bounded at import: a hash whose parameters would take seconds of CPU or gigabytes of
 * memory to verify is refused there, never met at a login.
 */
import { pbkdf2 as pbkdf2Callback, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { promisify } from 'node:util'
import { verify as argon2Verify } from '@node-rs/argon2'
import bcrypt from 'bcryptjs'
import { deserialize, serialize, type PhcObject } from '@phc/format'
import { FirebaseScrypt } from 'firebase-scrypt'

const pbkdf2 = promisify(pbkdf2Callback)
const scrypt = promisify(scryptCallback) as unknown as (password: string, salt: Buffer, keylen: number, options: ScryptOptions) => Promise<Buffer>

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
export type SourceFormat = ImportedKind | 'keycloak-pbkdf2'

const PREFIX = 'import:'

/** Upper bounds on what an imported hash may cost to verify. */
const LIMITS = {
  argon2MemoryKib: 262_144,
  argon2Time: 20,
  bcryptCost: 16,
  scryptLogN: 20,
  scryptR: 32,
  scryptP: 16,
  scryptMemoryBytes: 512 * 1024 * 1024,
  pbkdf2Iterations: 5_000_000,
}

export const isImportedHash = (stored: string): boolean => stored.startsWith(PREFIX)

const BCRYPT = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

export type ParsedImport = { ok: true; stored: string; format: SourceFormat } | { ok: false; reason: string }

const fail = (reason: string): ParsedImport => ({ ok: false, reason })
const stored = (kind: ImportedKind, hash: string, format: SourceFormat = kind): ParsedImport => ({ ok: true, stored: `${PREFIX}${kind}:${hash}`, format })

const int = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) ? value : null)

function phc(hash: string): PhcObject | null {
  try {
    return deserialize(hash)
  } catch {
    return null
  }
}

function scryptShape(parsed: PhcObject): { N: number; r: number; p: number; maxmem: number } | string {
  const ln = int(parsed.params?.ln)
  const r = int(parsed.params?.r)
  const p = int(parsed.params?.p)
  if (ln === null || r === null || p === null) return 'scrypt needs the integer parameters ln, r and p'
  if (ln < 1 || ln > LIMITS.scryptLogN || r < 1 || r > LIMITS.scryptR || p < 1 || p > LIMITS.scryptP) return 'scrypt parameters out of the accepted range'
  const N = 2 ** ln
  const memory = 128 * N * r * p
  if (memory > LIMITS.scryptMemoryBytes) return 'scrypt parameters need too much memory'
  return { N, r, p, maxmem: memory + 32 * 1024 * 1024 }
}

const PBKDF2_DIGESTS: Record<string, 'sha256' | 'sha512'> = { 'pbkdf2-sha256': 'sha256', 'pbkdf2-sha512': 'sha512' }

function pbkdf2Shape(parsed: PhcObject): { digest: 'sha256' | 'sha512'; iterations: number } | string {
  const digest = PBKDF2_DIGESTS[parsed.id]
  if (!digest) return `unsupported PBKDF2 variant ${parsed.id}`
  const iterations = int(parsed.params?.i)
  if (iterations === null || iterations < 1) return 'pbkdf2 needs the integer parameter i'
  if (iterations > LIMITS.pbkdf2Iterations) return 'pbkdf2 iteration count out of the accepted range'
  return { digest, iterations }
}

/** A PHC string or a bcrypt hash, as one line's `passwordHash` string. */
function parseHashString(hash: string): ParsedImport {
  const bcrypt = BCRYPT.exec(hash)
  if (bcrypt) {
    const cost = Number(bcrypt[1])
    if (cost < 4 || cost > LIMITS.bcryptCost) return fail('bcrypt cost out of the accepted range')
    return stored('bcrypt', hash)
  }
  if (hash.startsWith('$2')) return fail('not a bcrypt hash ($2a$/$2b$/$2y$, a two-digit cost, 53 characters of salt and hash)')
  const parsed = phc(hash)
  if (!parsed) return fail('not a PHC string or a bcrypt hash')
  if (!parsed.salt?.length || !parsed.hash?.length) return fail('the PHC string needs a salt and a hash')
  switch (parsed.id) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d': {
      const m = int(parsed.params?.m)
      const t = int(parsed.params?.t)
      const p = int(parsed.params?.p)
      if (m === null || t === null || p === null) return fail('argon2 needs the integer parameters m, t and p')
      if (m > LIMITS.argon2MemoryKib || t > LIMITS.argon2Time || t < 1 || p < 1) return fail('argon2 parameters out of the accepted range')
      return stored('argon2', hash)
    }
    case 'scrypt': {
      const shape = scryptShape(parsed)
      return typeof shape === 'string' ? fail(shape) : stored('scrypt', hash)
    }
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512': {
      const shape = pbkdf2Shape(parsed)
      return typeof shape === 'string' ? fail(shape) : stored('pbkdf2', hash)
    }
    default:
      return fail(`unsupported hash algorithm ${parsed.id}`)
  }
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

/** Keycloak's password credential (credentialData + secretData of its realm export) as a PHC pbkdf2 string. */
function parseKeycloak(input: Record<string, unknown>): ParsedImport {
  const credential = jsonField(input.credentialData)
  const secret = jsonField(input.secretData)
  if (!credential || !secret) return fail('a Keycloak credential needs credentialData and secretData (JSON)')
  const algorithm = credential.algorithm
  if (algorithm !== 'pbkdf2-sha256' && algorithm !== 'pbkdf2-sha512') return fail(`unsupported Keycloak algorithm ${String(algorithm)}`)
  const iterations = int(credential.hashIterations)
  const salt = base64Bytes(secret.salt)
  const value = base64Bytes(secret.value)
  if (iterations === null || !salt?.length || !value?.length) return fail('a Keycloak credential needs hashIterations, salt and value')
  const hash = serialize({ id: algorithm, params: { i: iterations }, salt, hash: value })
  const shape = pbkdf2Shape(deserialize(hash))
  return typeof shape === 'string' ? fail(shape) : stored('pbkdf2', hash, 'keycloak-pbkdf2')
}

/**
 * One line's `passwordHash`, checked and put in its stored form; nothing is hashed. A string is a
 * PHC string or a bcrypt hash; an object names its format: `{ format: 'firebase-scrypt', hash, salt }`
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

function equalBytes(a: Buffer, b: Buffer): boolean {
  // the lengths are the stored hash's own, never a secret
  return a.length === b.length && timingSafeEqual(a, b)
}

const firebaseVerifiers = new WeakMap<FirebaseScryptParams, FirebaseScrypt>()

async function verifyKind(kind: string, hash: string, password: string, settings: ImportedHashSettings): Promise<boolean> {
  switch (kind) {
    case 'argon2':
      return argon2Verify(hash, password)
    case 'bcrypt':
      return bcrypt.compare(password, hash)
    case 'scrypt': {
      const parsed = deserialize(hash)
      const shape = scryptShape(parsed)
      if (typeof shape === 'string') return false
      return equalBytes(await scrypt(password, parsed.salt!, parsed.hash!.length, shape), parsed.hash!)
    }
    case 'pbkdf2': {
      const parsed = deserialize(hash)
      const shape = pbkdf2Shape(parsed)
      if (typeof shape === 'string') return false
      return equalBytes(await pbkdf2(password, parsed.salt!, shape.iterations, parsed.hash!.length, shape.digest), parsed.hash!)
    }
    case 'firebase-scrypt': {
      const params = settings.firebase
      if (!params) throw new Error('import.firebase is not configured')
      let verifier = firebaseVerifiers.get(params)
      if (!verifier) {
        verifier = new FirebaseScrypt({ signerKey: params.signerKey, saltSeparator: params.saltSeparator, rounds: params.rounds, memCost: params.memCost })
        firebaseVerifiers.set(params, verifier)
      }
      const [salt, value] = hash.split('$') as [string, string]
      // the library compares with timingSafeEqual
      return verifier.verify(password, salt, value)
    }
    default:
      return false
  }
}

/**
 * Whether `password` matches an imported hash (`import:<kind>:<hash>`), with the algorithm of the
 * system it came from, on the password exactly as typed (those systems did not normalise it).
 * Throws when the hash cannot be verified at all (a Firebase hash without import.firebase).
 */
export async function verifyImportedHash(storedHash: string, password: string, settings: ImportedHashSettings): Promise<boolean> {
  const rest = storedHash.slice(PREFIX.length)
  const colon = rest.indexOf(':')
  if (colon < 0 || password.length === 0) return false
  return verifyKind(rest.slice(0, colon), rest.slice(colon + 1), password, settings)
}

/** The kind of an imported hash, for logs and tests (null: one of ours). */
export function importedKind(storedHash: string): string | null {
  if (!isImportedHash(storedHash)) return null
  const rest = storedHash.slice(PREFIX.length)
  return rest.slice(0, rest.indexOf(':'))
}
