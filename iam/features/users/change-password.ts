/**
 * Password change by a signed-in user (OWASP ASVS 5.0 V6.2.3 and V7.4.3).
 *
 * - The current password is re-proved and every guess is counted exactly like a failed POST /login
 *   (login IP, login IP + address, the account's progressive delay): a stolen session must not
 *   become an unthrottled password oracle.
 * - One winner: the new hash replaces the verified one only if it is still the stored one
 *   (compare-and-set in the same transaction that revokes the other sessions and renews this one),
 *   so two parallel changes cannot both succeed and leave sessions of different passwords alive.
 * - Every other session ends; this one gets a new token pair in the same family.
 */
import type { IamContext } from '../../context'
import type { Visitor } from '../../db/schema'
import type { Actor } from '../security-events/repository'
import { listLiveTokenSummaries } from '../api-tokens/user-tokens'
import { chooseLocale, type Locale } from '../../contract/locales'
import { getMailer } from '../mail/mailer'
import { passwordChangedNotice } from '../mail/templates'
import { checkNewPassword, getPasswordHasher, type NewPasswordWarning } from '../passwords/password-service'
import type { LimitDecision } from '../rate-limits/limiter'
import { recordUserAction } from '../security-events/repository'
import { pairForFamily, renewFamilyToken, type OpenedSession, type TokenPair } from '../sessions/session-service'
import { revokeFamilies } from '../sessions/sessions-repo'
import { admitLoginAttempt, forgiveLoginAttempts } from './login-delay'
import { findUserById, replacePasswordHash } from './users-repo'

export type ChangePasswordCode =
  | 'password_mismatch'
  | 'no_password'
  | 'wrong_password'
  | 'weak_password'
  | 'breach_check_unavailable'
  | 'changed_meanwhile'
  | 'session_ended'

export type ChangePasswordResult =
  | { ok: true; pair: TokenPair; revokedSessions: number; warnings: NewPasswordWarning[] }
  | { ok: false; code: 'rate_limited'; limit: Extract<LimitDecision, { ok: false }> }
  | { ok: false; code: ChangePasswordCode; reason?: string }

export interface ChangePasswordInput {
  userId: number
  sessionId: string
  visitor: Pick<Visitor, 'id'>
  currentPassword: string
  password: string
  confirmedPassword: string
  actor: Actor
}

/** The login limiters and delay, consumed for this attempt as POST /login consumes them (one store call). */
async function admitAttempt(ctx: IamContext, email: string, input: ChangePasswordInput): Promise<Extract<LimitDecision, { ok: false }> | null> {
  const admitted = await admitLoginAttempt(ctx, { email, visitorRowId: input.visitor.id, ipAddress: input.actor.ipAddress })
  if (admitted.ok) return null
  return admitted.code === 'limited' ? admitted.decision : { ok: false, retryMs: admitted.retryMs, permanent: false }
}

/** Thrown inside the transaction to roll it back. */
class SessionEnded extends Error {}

export async function changePassword(ctx: IamContext, input: ChangePasswordInput): Promise<ChangePasswordResult> {
  if (input.password !== input.confirmedPassword) return { ok: false, code: 'password_mismatch' }
  const user = await findUserById(ctx.db, input.userId)
  if (!user) return { ok: false, code: 'session_ended' }
  // provider-only accounts have nothing to re-prove; they set a password through a reset link
  if (!user.password_hash) return { ok: false, code: 'no_password' }
  const limited = await admitAttempt(ctx, user.email, input)
  if (limited) return { ok: false, code: 'rate_limited', limit: limited }
  const hasher = getPasswordHasher(ctx)
  const verified = await hasher.verify(user.password_hash, input.currentPassword)
  if (!verified.ok) return { ok: false, code: 'wrong_password' }
  await forgiveLoginAttempts(ctx, { email: user.email, visitorRowId: input.visitor.id, ipAddress: input.actor.ipAddress })
  const verdict = await checkNewPassword(ctx, input.password, { email: user.email, name: user.name })
  if (!verdict.ok) return { ok: false, code: verdict.code === 'breach_check_unavailable' ? 'breach_check_unavailable' : 'weak_password', reason: verdict.reason }
  const newHash = await hasher.hash(input.password)
  const nowMs = ctx.now()
  const now = new Date(nowMs)
  let done: { session: OpenedSession; revoked: number } | 'changed_meanwhile'
  try {
    done = await ctx.db.transaction().execute(async (trx) => {
      // compare-and-set first: the loser of two parallel changes writes nothing
      if (!(await replacePasswordHash(trx, user.id, user.password_hash!, newHash, now))) return 'changed_meanwhile' as const
      const session = await renewFamilyToken(ctx, trx, input.sessionId, nowMs)
      // this session was revoked meanwhile: undo the new hash too
      if (!session) throw new SessionEnded()
      const revoked = await revokeFamilies(trx, { userId: user.id, exceptFamilyId: input.sessionId }, 'password_changed', now, ctx.sessionHooks)
      await recordUserAction(trx, 'password_changed', { userId: user.id, actor: input.actor, details: { revokedSessions: revoked.length }, at: now })
      return { session, revoked: revoked.length }
    })
  } catch (error) {
    if (error instanceof SessionEnded) return { ok: false, code: 'session_ended' }
    throw error
  }
  if (done === 'changed_meanwhile') return { ok: false, code: done }
  const pair = await pairForFamily(ctx, done.session)
  if (!pair) return { ok: false, code: 'session_ended' }
  ctx.log.info('password changed', { userId: user.id, revokedSessions: done.revoked })
  sendNotice(ctx, user.id, user.email, input.actor.ipAddress, { locale: chooseLocale(user.locale, input.actor.locale), timeZone: user.time_zone ?? input.actor.timeZone ?? null }, now)
  return { ok: true, pair, revokedSessions: done.revoked, warnings: verdict.warnings }
}

/** The notice names live API tokens (never a raw token); a failed delivery is logged, not an error. */
function sendNotice(ctx: IamContext, userId: number, email: string, ipAddress: string, reader: { locale: Locale; timeZone: string | null }, now: Date): void {
  listLiveTokenSummaries(ctx.db, userId, now)
    .then((tokens) => {
      const content = passwordChangedNotice({ siteName: ctx.config.email.siteName, ...reader, when: now, ipAddress, tokens, keptCurrentSession: true })
      return getMailer(ctx).send({ to: email, content })
    })
    .catch((error: Error) => ctx.log.error('password-changed notice not delivered', { userId, error: error.message }))
}
