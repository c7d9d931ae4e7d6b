/**
 * The operations unstorage's API cannot do atomically (it has get and set, no compare-and-set):
 * set-if-absent, increment-with-TTL, the rate limiter's consume and the progressive delay's attempt.
 * Each driver implements them once on its own instance: Lua scripts on the ioredis client
 * (atomic-redis.ts), synchronous steps on the memory driver's Map (atomic-memory.ts). Keys are full
 * store keys; `now` is the IAM's clock, which judges every expiry (clocked.ts).
 *
 * Limiter state model (keys, parts, policy) and the consume rule: features/rate-limits/limiter-state.ts.
 */

/** A consume's outcome. `retryMs`: ms before the next request can be allowed (for a permanent block, its remaining life). */
export type LimitDecision = { ok: true } | { ok: false; retryMs: number; permanent: boolean }

/** One limiter part in ms. */
export type PartMs = { points: number; durationMs: number; blockMs: number }

export type LimiterKeys = { windows: string[]; blocks: string[]; rejections: string; permanent: string }

export type LimiterPolicy = {
  /** 0 = never; n = the n-th consecutive rejection creates the permanent block */
  permanentAfter: number
  permanentBlockMs: number
  /** life of the consecutive-rejection counter, refreshed on each rejection */
  rejectionsTtlMs: number
}

export type ProgressiveDelaySpec = { freeAttempts: number; baseDelayMs: number; maxDelayMs: number; windowMs: number }

/** `retryMs`: how long the refused caller must wait before its next attempt can be admitted. */
export type DelayDecision = { ok: true } | { ok: false; retryMs: number }

export type DelayKeys = { count: string; gate: string }

/** The delay's attempt by mark: the decision and the JSON the mark held (null: no live mark). */
export type MarkedDelayDecision = { decision: DelayDecision; mark: string | null }

/** Points given back to a limiter key's live windows (refundThenDelete): its window keys and how many. */
export type LimitRefund = { windows: string[]; points: number }

/** One limiter's consume, as consumeLimit takes it. */
export type LimitStep = { keys: LimiterKeys; parts: PartMs[]; policy: LimiterPolicy }

/** One delay attempt chosen by a mark, as consumeThenAttemptByMark takes it. */
export type MarkedDelayStep = { mark: string; marked: DelayKeys; unmarked: DelayKeys; spec: ProgressiveDelaySpec }

/**
 * What an admitted attempt has used, read in the same step: per limiter, the highest count of its
 * windows after this consume; and the attempts the delay's chosen subject has had in its window,
 * this one included. The login reads recent failures from it (features/users/login-delay.ts)
 * without a store call of its own.
 */
export type AdmissionCounts = { limits: number[]; delay: number }

/**
 * Each limiter's decision up to the first refusal; the delay's only when every limiter allowed;
 * `used` only when the delay admitted the attempt too.
 */
export type StepsAdmission = { limits: LimitDecision[]; delay: MarkedDelayDecision | null; used?: AdmissionCounts }

/** 2^30 * baseDelayMs is far beyond any sane maxDelayMs; the cap keeps the power finite. */
export const MAX_DOUBLINGS = 30

/**
 * The wait imposed after the `admitted`-th attempt of a window: none while attempts are free, then
 * baseDelayMs doubling per further attempt, capped at maxDelayMs. (The Redis script computes the same.)
 */
export function delayAfterMs(admitted: number, spec: ProgressiveDelaySpec): number {
  if (admitted < spec.freeAttempts) return 0
  const doublings = Math.min(admitted - spec.freeAttempts, MAX_DOUBLINGS)
  return Math.min(spec.baseDelayMs * 2 ** doublings, spec.maxDelayMs)
}

export interface AtomicOps {
  /** Writes `json` only when `key` is absent or expired by `now`; true when this call wrote it (one winner). */
  setIfAbsent(key: string, json: string, ttlMs: number, now: number): Promise<boolean>
  /** Atomic +by; the expiry is set when the counter is created and kept after. Returns the new value. */
  increment(key: string, ttlMs: number, by: number, now: number): Promise<number>
  /**
   * Spends one point on every part, or none when any part (or the permanent block) refuses; counts
   * consecutive rejections and creates the permanent block per `policy`.
   */
  consumeLimit(keys: LimiterKeys, parts: PartMs[], policy: LimiterPolicy, now: number): Promise<LimitDecision>
  /** True while any of `keys` is alive by `now`. */
  anyAlive(keys: string[], now: number): Promise<boolean>
  /** Which of `keys` are alive by `now`, in their order, read in one step. */
  aliveEach(keys: string[], now: number): Promise<boolean[]>
  /** Admits and counts one attempt, or refuses it (nothing counted) while the gate is alive. */
  attemptDelay(keys: DelayKeys, spec: ProgressiveDelaySpec, now: number): Promise<DelayDecision>
  /**
   * consumeLimit on each of `limits` in order, stopping at the first refusal (the later limiters
   * and the delay untouched), then, when every one allowed, attemptDelay on `delay.marked`'s keys
   * while `delay.mark` is alive by `now`, else on `delay.unmarked`'s, answering the mark's JSON
   * (null: absent or expired): steps a caller would take one after another, in one store step.
   * With no limiters, it is the delay's attempt by mark alone. An admitted attempt also answers
   * what it used (`used`, read in the same step).
   */
  consumeThenAttemptByMark(limits: LimitStep[], delay: MarkedDelayStep, now: number): Promise<StepsAdmission>
  /** Deletes every key in one step. */
  deleteAll(keys: string[]): Promise<void>
  /**
   * Gives each refund's points back to its live windows (never below 0; the window keeps its
   * expiry; blocks are untouched, so a refund never lifts a refusal already made), then deletes
   * `keys`: what a success settles, in one store step.
   */
  refundThenDelete(refunds: LimitRefund[], keys: string[], now: number): Promise<void>
}
