/**
 * The password hasher of a booted context (one per config), and the full check a new password
 * goes through: policy, then the breach corpus.
 */
import type { IamContext } from '../../context'
import { checkBreachedPassword } from './breach-check'
import { createPasswordHasher, type PasswordHasher } from './hasher'
import { checkPasswordPolicy } from './policy'

const hashers = new WeakMap<IamContext, PasswordHasher>()

export function getPasswordHasher(ctx: IamContext): PasswordHasher {
  let hasher = hashers.get(ctx)
  if (!hasher) {
    hasher = createPasswordHasher(ctx.config.password.argon2, ctx.config.password.pepper)
    hashers.set(ctx, hasher)
  }
  return hasher
}

/** Why a new password is refused: the policy, a known breach, or a breach check that could not answer. */
export type NewPasswordFailureCode = 'weak_password' | 'breached_password' | 'breach_check_unavailable'
export type NewPasswordResult = { ok: true } | { ok: false; code: NewPasswordFailureCode; reason: string }

/** Policy first (cheap, local), then the k-anonymity breach lookup. */
export async function checkNewPassword(ctx: IamContext, password: string, email: string | null): Promise<NewPasswordResult> {
  const policy = checkPasswordPolicy(password, email, ctx.config.password.policy)
  if (!policy.ok) return { ok: false, code: 'weak_password', reason: policy.reason }
  const breach = await checkBreachedPassword(password, ctx.config.password.breachCheck, (msg, fields) => ctx.log.warn(msg, fields), fetch, ctx.now)
  if (breach === 'breached') {
    return { ok: false, code: 'breached_password', reason: 'This password has appeared in a data breach; choose another one' }
  }
  if (breach === 'unavailable') return { ok: false, code: 'breach_check_unavailable', reason: 'The password could not be checked; try again later' }
  return { ok: true }
}
