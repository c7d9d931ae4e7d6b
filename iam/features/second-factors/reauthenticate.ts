/**
 * Re-authentication of a signed-in session (POST /auth/reauthenticate): the holder proves the
 * sign-in again before a change to how the account signs in (a second factor or a passkey added or
 * removed, the email changed). A stolen session (cookies and access token, no password) then
 * cannot add a factor of its own and keep the account after the owner recovers it.
 *
 * The proof is the account's strongest: the password (counted like a failed POST /login, so a
 * stolen session is no password oracle), or a TOTP or recovery code (the account's code budget,
 * second-factors/code-budget.ts). An account with neither (provider sign-in only) gets a code by
 * mail, bound to this session and device, and sends it back through the same route.
 *
 * Success stamps session_families.reauthenticated_at, which full authentication reads in its one
 * statement (http/reauthenticate.ts judges the window).
 */
import { chooseLocale, type Locale } from '../../contract/locales'
import type { IamContext } from '../../context'
import { reauthenticateCodeMail } from '../mail/templates'
import { codeMailFields, maskEmail, startFlow } from '../mfa/flows'
import { attemptCode, consumeLink } from '../mfa/links'
import { REAUTHENTICATE_PURPOSE } from '../mfa/purposes'
import { findLink, findLiveLink } from '../mfa/repository'
import type { LimitDecision } from '../rate-limits/limiter'
import { recordSecurityEvent } from '../security-events/repository'
import type { CodeLocked } from './code-budget'
import { hasSecondFactor } from './repository'
import { verifySecondFactor } from './verify-factor'
import { proveAccountPassword } from '../users/prove-password'
import { findUserById } from '../users/users-repo'
import { admitFlowMail, type SessionUser } from '../mfa/session-flow'
import type { Actor } from '../security-events/repository'

export type ReauthProof = { password: string } | { code: string } | Record<string, never>

export type ReauthFailureCode =
  /** the password is wrong */
  | 'wrong_password'
  /** the code is wrong or expired, or the mailed code ran out of attempts */
  | 'invalid_code'
  /** a code was sent back but none was mailed to this session */
  | 'no_code_sent'
  /** the proof does not fit the account: a password for an account without one, a mail for one with a password or a second factor */
  | 'use_password'
  | 'use_code'
  | 'mail_failed'
  | 'session_ended'

export type ReauthResult =
  | { ok: true; method: 'password' | 'second_factor' | 'emailed_code'; until: Date }
  | { ok: true; method: 'code_mailed'; sentTo: string; expiresAt: Date }
  | { ok: false; code: 'rate_limited'; decision: Extract<LimitDecision, { ok: false }> }
  | { ok: false; code: ReauthFailureCode }
  | CodeLocked

const failed = (code: ReauthFailureCode): ReauthResult => ({ ok: false, code })

export async function reauthenticate(ctx: IamContext, input: { user: SessionUser; proof: ReauthProof; actor: Actor }): Promise<ReauthResult> {
  const user = await findUserById(ctx.db, input.user.userId)
  if (!user) return failed('session_ended')
  const secondFactor = await hasSecondFactor(ctx.db, user.id)
  const { proof } = input
  let method: 'password' | 'second_factor' | 'emailed_code'
  if ('password' in proof) {
    if (!user.password_hash) return failed('use_code')
    const proved = await proveAccountPassword(ctx, {
      userId: user.id,
      email: user.email,
      passwordHash: user.password_hash,
      password: proof.password,
      visitorRowId: input.user.visitorRowId,
      ipAddress: input.actor.ipAddress,
    })
    if (!proved.ok) return proved
    method = 'password'
  } else if ('code' in proof) {
    if (secondFactor) {
      const verified = await verifySecondFactor(ctx, { userId: user.id, code: proof.code, actor: input.actor, purpose: 'reauthenticate' })
      if (!verified.ok) return verified.code === 'locked' ? verified : failed('invalid_code')
      method = 'second_factor'
    } else if (user.password_hash) {
      // no second factor, and a password: a mailed code is not offered to such an account
      return failed('use_password')
    } else {
      const emailed = await spendMailedCode(ctx, input.user, proof.code)
      if (!emailed.ok) return emailed
      method = 'emailed_code'
    }
  } else {
    if (user.password_hash) return failed('use_password')
    if (secondFactor) return failed('use_code')
    return mailCode(ctx, input.user, user.email, chooseLocale(user.locale, input.actor.locale), input.actor)
  }
  const now = new Date(ctx.now())
  const stamped = await ctx.db
    .updateTable('session_families')
    .set({ reauthenticated_at: now })
    .where('id', '=', input.user.sessionId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  if (Number(stamped.numUpdatedRows) !== 1) return failed('session_ended')
  await recordSecurityEvent(ctx.db, { type: 'reauthenticated', userId: user.id, ...input.actor, details: { method }, at: now })
  return { ok: true, method, until: new Date(now.getTime() + ctx.config.security.reauthenticateWithinMs) }
}

/** A code by mail, bound to this session and device (the mail and links limiters as for custom MFA). */
async function mailCode(ctx: IamContext, user: SessionUser, email: string, locale: Locale, actor: Actor): Promise<ReauthResult> {
  const limited = await admitFlowMail(ctx, { userId: user.userId, ipAddress: actor.ipAddress })
  if (limited) return limited
  const result = await startFlow(ctx, {
    purpose: REAUTHENTICATE_PURPOSE,
    path: 'custom',
    userId: user.userId,
    familyId: user.sessionId,
    visitor: user.visitor_id,
    data: {},
    withCode: true,
    onLive: 'replace',
    mail: (issued) => {
      const { code, codeTtlMs } = codeMailFields(ctx, issued)
      return { to: email, links: [], content: reauthenticateCodeMail({ siteName: ctx.config.email.siteName, locale, code, codeTtlMs }) }
    },
  })
  if (!result.ok) return failed(result.code === 'mail_failed' ? 'mail_failed' : 'session_ended')
  const expiresAt = result.sent ? (result.issued.codeExpiresAt ?? result.issued.expiresAt) : result.expiresAt
  return { ok: true, method: 'code_mailed', sentTo: maskEmail(email), expiresAt }
}

/** The mailed code of this session's live flow: one counted attempt, then consumed (one winner). */
async function spendMailedCode(ctx: IamContext, user: SessionUser, code: string): Promise<{ ok: true } | { ok: false; code: ReauthFailureCode }> {
  const live = await findLiveLink(ctx.db, { userId: user.userId, familyId: user.sessionId, purpose: REAUTHENTICATE_PURPOSE, now: new Date(ctx.now()) })
  const link = live ? await findLink(ctx.db, live.jti) : null
  if (!link || link.visitor !== user.visitor_id) return { ok: false, code: 'no_code_sent' }
  const check = await attemptCode(ctx, link, code)
  if (!check.ok) return { ok: false, code: 'invalid_code' }
  const won = await ctx.db.transaction().execute((trx) => consumeLink(trx, ctx, link))
  return won ? { ok: true } : { ok: false, code: 'invalid_code' }
}
