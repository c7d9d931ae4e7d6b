/**
 * Argon2id password hashing (@node-rs/argon2) with the configured cost and an optional pepper
 * (Argon2's `secret` input, so a leaked database alone is not enough to test guesses). Passwords are
 * NFKC-normalised first so the same visible password always hashes the same.
 */
import { parseOptions, type Algorithm } from '@node-rs/argon2'
import { ImportedHashRefused, isImportedHash, verifyImportedHash, type ImportedHashSettings } from './imported-hashes'
import { argon2idPool, type HashJob, type HashPool, type PoolOutcome } from './hash-pool'
import { CapacityExceeded } from '../../lib/outage'
import { withSpan } from '../../../shared/tracing'

export interface Argon2Params {
  memoryCost: number
  timeCost: number
  parallelism: number
  /** threads of the process's Argon2id pool (hash-pool.ts), set by the first hasher; DEFAULT_ARGON2ID_THREADS unless given */
  threads?: number
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
  /** the threads our own Argon2id runs on (the process's own unless given) */
  threads: HashPool = argon2idPool(params.threads),
): PasswordHasher {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: params.memoryCost,
    timeCost: params.timeCost,
    parallelism: params.parallelism,
    ...(pepper ? { secret: new TextEncoder().encode(pepper) } : {}),
  }
  // on the pool's threads: one hash per core at a time, off libuv's pool (hash-pool.ts)
  const compute = async (job: HashJob): Promise<PoolOutcome> => {
    const outcome = await threads.run(job)
    // the pool has no deadline and no queue bound for these: only a lost worker fails a job
    if (outcome.type === 'failed' || outcome.type === 'busy' || outcome.type === 'timeout') throw new CapacityExceeded('the password could not be checked; try again')
    return outcome
  }
  const hashOf = async (password: string): Promise<string> => {
    const outcome = await compute({ kind: 'argon2id-hash', password, options })
    if (outcome.type !== 'hashed') throw new Error('the Argon2id pool answered a hash job with no hash')
    return outcome.hash
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
  // a span each when tracing is on (shared/tracing.ts); nothing of the password or the hash is
  // recorded. A malformed stored hash is a non-match (the worker answers false), never a crash.
  const doVerify = async (stored: string, password: string) => {
    verifications += 1
    const outcome = await withSpan('argon2 verify', ARGON2_SPAN, () => compute({ kind: 'argon2id-verify', hash: stored, password: normalizePassword(password), options }))
    return outcome.type === 'done' && outcome.match
  }
  return {
    hash: (password) => withSpan('argon2 hash', ARGON2_SPAN, () => hashOf(normalizePassword(password))),
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
      // a failure is not kept: the next call hashes again
      dummy ??= hashOf('dummy-password-for-timing-equalisation').catch((error: unknown) => {
        dummy = undefined
        throw error
      })
      await doVerify(await dummy, password)
    },
    get verifications() {
      return verifications
    },
  }
}
