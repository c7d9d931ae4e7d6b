/**
 * A first password for an account that has none (created through a sign-in provider).
 *
 * There is no current password to re-prove, so the route guards it the way it guards adding a
 * passkey: a sign-in proven within the re-authentication window and a confirmed address
 * (http/reauthenticate.ts). The new password goes through the same policy and breach check as any
 * other. Compare-and-set on "no password yet": an account that has one (or gets one meanwhile
 * from a parallel request) keeps it and must change it with POST /auth/change-password, which
 * re-proves the current one.
 *
 * Adding a way in ends no session (nothing was taken away from anyone); the owner is told by mail.
 */
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { checkNewPassword, getPasswordHasher, type NewPasswordWarning } from '../passwords/password-service'
import { sendSecondFactorNotice } from '../second-factors/notice'
import { recordUserAction } from '../security-events/repository'
import { findUserById } from './users-repo'

export type SetPasswordResult =
  | { ok: true; warnings: NewPasswordWarning[] }
  | { ok: false; code: 'password_mismatch' | 'has_password' | 'weak_password' | 'breach_check_unavailable' | 'session_ended'; reason?: string }

export async function setFirstPassword(
  ctx: IamContext,
  input: { userId: number; password: string; confirmedPassword: string; actor: Actor },
): Promise<SetPasswordResult> {
  if (input.password !== input.confirmedPassword) return { ok: false, code: 'password_mismatch' }
  const user = await findUserById(ctx.db, input.userId)
  if (!user) return { ok: false, code: 'session_ended' }
  if (user.password_hash) return { ok: false, code: 'has_password' }
  const verdict = await checkNewPassword(ctx, input.password, { email: user.email, name: user.name })
  if (!verdict.ok) return { ok: false, code: verdict.code === 'breach_check_unavailable' ? 'breach_check_unavailable' : 'weak_password', reason: verdict.reason }
  const hash = await getPasswordHasher(ctx).hash(input.password)
  const now = new Date(ctx.now())
  const set = await ctx.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('users')
      .set({ password_hash: hash, updated_at: now })
      .where('id', '=', user.id)
      .where('password_hash', 'is', null)
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) !== 1) return false
    await recordUserAction(trx, 'password_set', { userId: user.id, actor: input.actor, details: {}, at: now })
    return true
  })
  if (!set) return { ok: false, code: 'has_password' }
  ctx.log.info('first password set', { userId: user.id })
  sendSecondFactorNotice(ctx, { userId: user.id, change: 'password_set', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
  return { ok: true, warnings: verdict.warnings }
}
