/**
 * One failure budget per account for second-factor codes, across challenges and routes (the
 * sign-in step, disable, custom MFA, email change, re-authentication): a challenge's own attempt
 * count only bounds that challenge, and someone who knows the password can ask for a new one with
 * every sign-in. `secondFactor.accountFailures.failures` wrong codes within `windowMs` lock code
 * entry for the account for `lockMs` (a right code is refused too) and mail the owner once.
 *
 * A failure is reserved BEFORE the code is checked (one atomic increment, then a look at the lock)
 * and given back when the code was right, so concurrent guesses cannot overrun the budget: at most
 * `failures` codes are ever checked wrong per window, whatever the concurrency. Keys live in the
 * shared store (every instance sees the same count and lock) and carry TTLs.
 */
import { createHash } from 'node:crypto'
import type { IamContext } from '../../context'

/** `fresh`: this call made the lock (its caller mails the owner, once per lock) */
export type CodeLocked = { ok: false; code: 'locked'; retryMs: number; fresh: boolean }
export type CodeAttempt = { ok: true; count: number } | CodeLocked

/**
 * Whose budget: an account's (by id), or an address's (its SHA-256, never the address itself) for
 * code entry that must not tell whether an address has an account (the emailed sign-in code,
 * features/users/email-sign-in.ts): an unknown address spends and locks exactly as a known one.
 */
export type BudgetSubject = number | { address: string }

const subjectKey = (subject: BudgetSubject) =>
  typeof subject === 'number' ? String(subject) : `addr:${createHash('sha256').update(subject.address.toLowerCase()).digest('base64url')}`
const failuresKey = (subject: BudgetSubject) => `sf-budget:${subjectKey(subject)}:failures`
const lockKey = (subject: BudgetSubject) => `sf-budget:${subjectKey(subject)}:lock`

/** Refuses while the account's (or address's) code entry is locked; otherwise reserves one failure. */
export async function reserveCodeAttempt(ctx: IamContext, subject: BudgetSubject): Promise<CodeAttempt> {
  const { failures, windowMs } = ctx.config.secondFactor.accountFailures
  const lockedUntil = await ctx.store.get<number>(lockKey(subject))
  const now = ctx.now()
  if (lockedUntil !== null && lockedUntil > now) return { ok: false, code: 'locked', retryMs: lockedUntil - now, fresh: false }
  const count = await ctx.store.increment(failuresKey(subject), windowMs, 1)
  // only concurrent attempts get here past the budget: the attempt that spent the last failure locked it
  if (count > failures) return lockCodeEntry(ctx, subject)
  // The lock is set before the window is emptied (lockCodeEntry), so an attempt that read no lock
  // above and then counted into the emptied window finds the lock here: past the budget too, its
  // count given back. Without this look, attempts in flight while the lock was made each had a
  // code checked in the new window, one more wrong code than the budget.
  const lockedMeanwhile = await ctx.store.get<number>(lockKey(subject))
  if (lockedMeanwhile !== null && lockedMeanwhile > now) {
    await ctx.store.increment(failuresKey(subject), windowMs, -1)
    return { ok: false, code: 'locked', retryMs: lockedMeanwhile - now, fresh: false }
  }
  return { ok: true, count }
}

/**
 * After the check: a right code gives its reservation back; the wrong code that spends the last
 * failure locks code entry (and the first to lock mails the owner).
 */
export async function settleCodeAttempt(ctx: IamContext, subject: BudgetSubject, attempt: { count: number }, right: boolean): Promise<{ ok: true } | CodeLocked> {
  const { failures, windowMs } = ctx.config.secondFactor.accountFailures
  if (right) {
    await ctx.store.increment(failuresKey(subject), windowMs, -1)
    return { ok: true }
  }
  return attempt.count >= failures ? lockCodeEntry(ctx, subject) : { ok: true }
}

async function lockCodeEntry(ctx: IamContext, subject: BudgetSubject): Promise<CodeLocked> {
  const { lockMs } = ctx.config.secondFactor.accountFailures
  const now = ctx.now()
  const won = await ctx.store.setIfAbsent(lockKey(subject), now + lockMs, lockMs)
  if (won) {
    // the window starts afresh once the lock ends
    await ctx.store.delete(failuresKey(subject))
    return { ok: false, code: 'locked', retryMs: lockMs, fresh: true }
  }
  const lockedUntil = (await ctx.store.get<number>(lockKey(subject))) ?? now + lockMs
  return { ok: false, code: 'locked', retryMs: Math.max(1000, lockedUntil - now), fresh: false }
}
