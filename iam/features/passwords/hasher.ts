/**
 * Argon2id password hashing (@node-rs/argon2) with the configured cost and an optional pepper
 * (Argon2's `secret` input, so a leaked database alone is not enough to test guesses). Passwords are
 * NFKC-normalised first so the same visible password always hashes the same.
 */
import { hash, parseOptions, verify, type Algorithm } from '@node-rs/argon2'
import { ImportedHashRefused, isImportedHash, verifyImportedHash, type ImportedHashSettings } from './imported-hashes'
import type { HashPool } from './imported-hash-pool'
import { CapacityExceeded } from '../../lib/outage'
import { withSpan } from '../../../shared/tracing'

export interface Argon2Params {
  memoryCost: number
  timeCost: number
  parallelism: number
}

export interface PasswordHasher {
  hash(password: string): Promise<string>
  /**
   * ok: the password matches; needsRehash: the stored hash used other parameters, or was imported
   * from another system (imported-hashes.ts: verified with its own algorithm, then replaced)
   */
  verify(stored: string, password: string): Promise<{ ok: boolean; needsRehash: boolean }>
  /** One verify against a fixed dummy hash: unknown accounts cost what known ones cost. */
  verifyDummy(password: string): Promise<void>
  /** Argon2 verifications run so far (known + dummy); observable in debug logs and unit tests. */
  readonly verifications: number
}

// The const enum of the typings cannot be read at run time under isolated modules.
const ARGON2ID = 2 as Algorithm

/** What an Argon2 span says: the algorithm, never an input. */
const ARGON2_SPAN = { 'iam.password.algorithm': 'argon2id' }

/** Stored hashes past their caps already told (a guesser repeats them); forgotten all at once when full. */
const TOLD_MAX = 10_000

/** NFKC: compatibility forms (full-width letters, ligatures) fold to one representation. */
export const normalizePassword = (password: string): string => password.normalize('NFKC')

export function createPasswordHasher(
  params: Argon2Params,
  pepper?: string,
  imported: ImportedHashSettings = {},
  /**
   * an imported hash answered as a wrong password without a verdict: one that cannot be verified
   * at all (a Firebase hash without its parameters), or an ImportedHashRefused (past its caps: told
   * once per stored hash; past the pool's deadline or queue bound: told each time)
   */
  onImportedError: (error: Error) => void = () => {},
  /** the workers imported hashes are verified on (the process's own unless given) */
  pool?: HashPool,
): PasswordHasher {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: params.memoryCost,
    timeCost: params.timeCost,
    parallelism: params.parallelism,
    ...(pepper ? { secret: new TextEncoder().encode(pepper) } : {}),
  }
  let verifications = 0
  let dummy: Promise<string> | undefined
  const toldOverCap = new Set<string>()
  const tell = (stored: string, error: Error) => {
    if (error instanceof ImportedHashRefused && error.reason === 'over_cap') {
      if (toldOverCap.has(stored)) return
      if (toldOverCap.size >= TOLD_MAX) toldOverCap.clear()
      toldOverCap.add(stored)
    }
    onImportedError(error)
  }
  const doVerify = async (stored: string, password: string) => {
    verifications += 1
    try {
      // a span when tracing is on (shared/tracing.ts); nothing of the password or the hash is recorded
      return await withSpan('argon2 verify', ARGON2_SPAN, () => verify(stored, normalizePassword(password), options))
    } catch {
      // a malformed stored hash is a non-match, never a crash
      return false
    }
  }
  return {
    hash: (password) => withSpan('argon2 hash', ARGON2_SPAN, () => hash(normalizePassword(password), options)),
    async verify(stored, password) {
      if (isImportedHash(stored)) {
        verifications += 1
        const ok = await verifyImportedHash(stored, password, imported, pool).catch((error: Error) => {
          tell(stored, error)
          // not verified for want of capacity: a 503 to retry, not "the password is incorrect". No
          // `cause`: h3 wraps a thrown error's cause in place of the error, which would hide this one
          if (error instanceof ImportedHashRefused && (error.reason === 'busy' || error.reason === 'timeout')) throw new CapacityExceeded(error.message)
          return false
        })
        return { ok, needsRehash: ok }
      }
      const ok = await doVerify(stored, password)
      let needsRehash = false
      if (ok) {
        try {
          const used = parseOptions(stored)
          needsRehash =
            used.algorithm !== ARGON2ID ||
            used.memoryCost !== params.memoryCost ||
            used.timeCost !== params.timeCost ||
            used.parallelism !== params.parallelism
        } catch {
          needsRehash = true
        }
      }
      return { ok, needsRehash }
    },
    async verifyDummy(password) {
      // created lazily with the live parameters, so the dummy costs exactly what a real hash costs
      dummy ??= hash('dummy-password-for-timing-equalisation', options)
      await doVerify(await dummy, password)
    },
    get verifications() {
      return verifications
    },
  }
}
