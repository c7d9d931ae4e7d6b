/**
 * The password hasher of a booted context (one per config), and the full check a new password
 * goes through: policy, strength, then the breach corpus.
 */
import type { IamContext } from '../../context'
import { checkBreachedPassword } from './breach-check'
import { createPasswordHasher, type PasswordHasher } from './hasher'
import { ImportedHashRefused } from './imported-hashes'
import { checkPasswordPolicy } from './policy'

// The strength estimator's dictionaries are megabytes of word lists: loaded when a new password is
// first checked, not at every start of the IAM (most requests never set a password).
let strengthModule: Promise<typeof import('../../../shared/password-strength')> | undefined
const loadStrength = () => (strengthModule ??= import('../../../shared/password-strength'))

const hashers = new WeakMap<IamContext, PasswordHasher>()

export function getPasswordHasher(ctx: IamContext): PasswordHasher {
  let hasher = hashers.get(ctx)
  if (!hasher) {
    // a refusal (past the caps, the deadline, the queue bound) is the imported hashes' own bound at
    // work; a hash that cannot be verified at all is a configuration or data problem
    hasher = createPasswordHasher(ctx.config.password.argon2, ctx.config.password.pepper, ctx.config.import, (error) =>
      error instanceof ImportedHashRefused ? ctx.log.warn(error.message, error.fields) : ctx.log.error('imported password hash not verifiable', { error: error.message }),
    )
    hashers.set(ctx, hasher)
  }
  return hasher
}

/** Why a new password is refused: the policy, a known breach, or a breach check that could not answer. */
export type NewPasswordFailureCode = 'weak_password' | 'breached_password' | 'breach_check_unavailable'

/**
 * What an accepted password's owner should still hear. `breach_check_skipped`: the range API could
 * not be reached and `breachCheck.failOpen` let the password through unchecked; saying so lets the
 * person choose to pick another one (or come back later) instead of believing it was checked.
 */
export type NewPasswordWarning = 'breach_check_skipped'
export type NewPasswordResult = { ok: true; warnings: NewPasswordWarning[] } | { ok: false; code: NewPasswordFailureCode; reason: string }

/** The person a new password belongs to: their details are the first words a guesser tries. */
export interface PasswordOwner {
  email: string | null
  name?: string | null
}

/** Policy first (cheap, local), then the strength estimate, then the k-anonymity breach lookup. */
export async function checkNewPassword(ctx: IamContext, password: string, owner: PasswordOwner): Promise<NewPasswordResult> {
  const { policy } = ctx.config.password
  const rules = checkPasswordPolicy(password, owner.email, policy)
  if (!rules.ok) return { ok: false, code: 'weak_password', reason: rules.reason }
  const { checkPasswordStrength, userInputsOf } = await loadStrength()
  const inputs = userInputsOf({ email: owner.email, name: owner.name, siteName: ctx.config.email.siteName })
  const strength = checkPasswordStrength(password, inputs, policy.minScore)
  if (!strength.ok) return { ok: false, code: 'weak_password', reason: strength.reason }
  const breach = await checkBreachedPassword(password, ctx.config.password.breachCheck, (msg, fields) => ctx.log.warn(msg, fields), fetch, ctx.now)
  if (breach === 'breached') {
    return { ok: false, code: 'breached_password', reason: 'This password has appeared in a data breach; choose another one' }
  }
  if (breach === 'unavailable') return { ok: false, code: 'breach_check_unavailable', reason: 'The password could not be checked; try again later' }
  return { ok: true, warnings: breach === 'unchecked' ? ['breach_check_skipped'] : [] }
}
