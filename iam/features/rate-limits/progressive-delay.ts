/**
 * A progressive delay per subject (the per-account login throttle): the first
 * `freeAttempts` attempts in a window pass at once; after that each attempt must wait
 * `min(baseDelayMs * 2^k, maxDelayMs)` since the previous admitted one (k = 0, 1, 2 ...). It never
 * blocks for good: whoever comes after the delay is admitted, so the owner of an attacked account
 * can always sign in with the right password, at worst `maxDelayMs` late per attempt. Guesses spread
 * over any number of addresses share the subject's delay, which caps them at one per `maxDelayMs`.
 *
 * An attempt is counted when it is admitted, before the caller does the expensive work (Argon2),
 * not when it fails: counting on failure would let N parallel guesses all pass the check before
 * the first of them fails. A success calls `forgive`, which forgets the subject's count.
 *
 * State per subject (h = a hash of the subject: no email sits in storage in clear):
 *   pd:<name>:{h}:n     attempts admitted in the window; TTL windowMs, restarted by each admission
 *                       (the count is forgotten only after windowMs without an attempt)
 *   pd:<name>:{h}:gate  present while the next attempt must wait; its TTL is the wait
 * One attempt is one atomic operation of the storage layer (lib/storage/atomic-*.ts: a Lua script on
 * Redis, one synchronous step in memory), judged by the IAM's clock.
 */
import type { SharedStore } from '../../lib/storage'
import { delayAfterMs, type DelayDecision, type DelayKeys, type MarkedDelayDecision, type MarkedDelayStep, type ProgressiveDelaySpec } from '../../lib/storage/atomic'
import { hashKeyPart } from '../../lib/storage/keys'
import { checkLimiterName } from './limiter-state'

export { delayAfterMs, type DelayDecision, type MarkedDelayDecision, type MarkedDelayStep, type ProgressiveDelaySpec }

export interface ProgressiveDelay {
  /** Admits and counts one attempt for `subject`, or refuses it (nothing counted) while the delay runs. */
  attempt(subject: string): Promise<DelayDecision>
  /**
   * attempt() for `subjects.marked` while the store key `markKey` (a full key) is alive, else for
   * `subjects.unmarked`: the mark is read and the attempt decided in one store step. Also answers
   * the mark's JSON (null: no live mark).
   */
  attemptByMark(markKey: string, subjects: { marked: string; unmarked: string }): Promise<MarkedDelayDecision>
  /** attemptByMark's step, for a caller that runs it after limiters in one store call (atomic.ts consumeThenAttemptByMark). */
  stepByMark(markKey: string, subjects: { marked: string; unmarked: string }): MarkedDelayStep
  /** Forgets `subject`'s attempts and delay (after a success). */
  forgive(subject: string): Promise<void>
  /** The full store keys `forgive` deletes, for a caller that forgets several subjects in one store call. */
  forgiveKeys(subject: string): string[]
}

function checkSpec(spec: ProgressiveDelaySpec): void {
  for (const [name, value] of Object.entries(spec)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`progressive delay ${name} must be a positive integer: ${value}`)
  }
}

/** A progressive delay named `name` (namespaces its keys) over the shared store. */
export function createProgressiveDelay(store: SharedStore, name: string, spec: ProgressiveDelaySpec): ProgressiveDelay {
  checkLimiterName(name)
  checkSpec(spec)
  const keysOf = (subject: string): DelayKeys => {
    // {digest} is a Redis Cluster hash tag: both keys of one script land in the same slot.
    const at = (suffix: string) => store.fullKey(`pd:${name}:{${hashKeyPart(subject)}}:${suffix}`)
    return { count: at('n'), gate: at('gate') }
  }
  const forgiveKeys = (subject: string) => {
    const keys = keysOf(subject)
    return [keys.count, keys.gate]
  }
  const stepByMark = (markKey: string, subjects: { marked: string; unmarked: string }): MarkedDelayStep => ({
    mark: markKey,
    marked: keysOf(subjects.marked),
    unmarked: keysOf(subjects.unmarked),
    spec,
  })
  return {
    attempt: (subject) => store.atomic.attemptDelay(keysOf(subject), spec, store.now()),
    attemptByMark: async (markKey, subjects) => (await store.atomic.consumeThenAttemptByMark([], stepByMark(markKey, subjects), store.now())).delay!,
    stepByMark,
    forgive: (subject) => store.atomic.deleteAll(forgiveKeys(subject)),
    forgiveKeys,
  }
}
