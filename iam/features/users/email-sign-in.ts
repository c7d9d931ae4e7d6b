/**
 * Finishing a sign-in by email (email-sign-in-request.ts mailed the link and/or code):
 *
 * - the link (POST /auth/email-sign-in/link) works once, before it expires, and only in the browser
 *   that asked: its visitor is the asking device's. Opened in another browser it is not consumed;
 *   the answer says to open it where it was asked for, or to type the mailed code there (as the
 *   verification links do, account-actions/verify-email.ts), so a link forwarded or intercepted
 *   does not sign in whoever opens it;
 * - the code (POST /auth/email-sign-in/code) is typed with the address on any device. Every
 *   attempt spends one of the link's attempts (magic_links.attempts) and one of the address's code
 *   budget (second-factors/code-budget.ts, keyed on the address, so an unknown address spends and
 *   locks exactly as a known one does and the lock tells nothing).
 *
 * Either proves the mailbox: the address is confirmed. An account never confirmed before may have
 * been set up by someone who signed up with the owner's address: what they set up goes, the
 * password with it, and their sessions end (remove-setup.ts, as a password reset does). An account
 * with a second factor still gets its step (second-factors/sign-in-step.ts); the session's `amr`
 * says `email` (and `otp` for the code), RFC 8176.
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import type { Visitor } from '../../db/schema'
import { runAfterResponse } from '../../lib/background'
import { isDeletionPending } from '../account-deletion/deletion-state'
import { nothingRemoved, removeSetup } from '../account-actions/remove-setup'
import { normalizeEmail } from '../email-checks/email-checks'
import { ssoRequiredFor } from '../enterprise/sso-required'
import type { LinkParams } from '../mfa/link-token'
import { attemptCode, checkLink, consumeLink, type LinkFailure } from '../mfa/links'
import { EMAIL_SIGN_IN_PURPOSE } from '../mfa/purposes'
import { findLink, findLiveLink, type LinkWithCode } from '../mfa/repository'
import { reserveCodeAttempt, settleCodeAttempt, type CodeLocked } from '../second-factors/code-budget'
import { hasSecondFactor } from '../second-factors/repository'
import { issueChallenge, type SecondFactorChallenge } from '../second-factors/sign-in-step'
import { recordSecurityEvent } from '../security-events/repository'
import { createSignInSession, type EmailAmr, type TokenPair } from '../sessions/session-service'
import { revokeFamilies } from '../sessions/sessions-repo'
import { refundLoginIpPoints } from './login-delay'
import { findSuspension, type SuspensionView } from './suspension'
import { findUserByEmail, findUserById } from './users-repo'

const isEmailSignIn = (purpose: string) => purpose === EMAIL_SIGN_IN_PURPOSE

export interface EmailSignInDevice {
  visitor: Visitor
  ipAddress: string
  fingerprint: Record<string, unknown> | null
}

export type EmailSignInResult =
  | { ok: true; pair: TokenPair; userId: number }
  | { ok: true; secondFactor: SecondFactorChallenge; userId: number }
  | { ok: false; code: `link_${LinkFailure}` }
  /** a live link opened in another browser than the one that asked: not consumed */
  | { ok: false; code: 'other_device' }
  | { ok: false; code: 'code_invalid' }
  | { ok: false; code: 'banned'; suspension: SuspensionView }
  /** the address's domain requires its organization's sign-in now (enterprise/sso-required.ts): the link is not used */
  | { ok: false; code: 'sso_required'; connectionId: string }
  | CodeLocked

/** The emailed link, in the browser that asked for it. */
export async function signInWithEmailLink(ctx: IamContext, input: { params: LinkParams } & EmailSignInDevice): Promise<EmailSignInResult> {
  const check = await checkLink(ctx, input.params, isEmailSignIn)
  if (!check.ok) return { ok: false, code: `link_${check.code}` }
  // the link names the browser it was asked from; compared as public ids, which both sides hold
  if (check.link.visitor !== input.visitor.visitor_id) return { ok: false, code: 'other_device' }
  // only the link is consumed: its code, dead with it, need not be live (consumeLink would then refuse)
  return finish(ctx, { ...check.link, code: null }, input, 'email')
}

/** The emailed code, typed with the address on any device. */
export async function signInWithEmailCode(ctx: IamContext, input: { email: string; code: string } & EmailSignInDevice): Promise<EmailSignInResult> {
  const address = normalizeEmail(input.email)
  const reserved = await reserveCodeAttempt(ctx, { address })
  if (!reserved.ok) return reserved
  const link = await liveLinkOf(ctx, address)
  const right = link ? (await attemptCode(ctx, link, input.code)).ok : false
  const settled = await settleCodeAttempt(ctx, { address }, reserved, right)
  if (!settled.ok) return settled
  if (!link || !right) return { ok: false, code: 'code_invalid' }
  return finish(ctx, link, input, 'email otp')
}

async function liveLinkOf(ctx: IamContext, address: string): Promise<LinkWithCode | null> {
  const user = await findUserByEmail(ctx.db, address)
  if (!user) return null
  const live = await findLiveLink(ctx.db, { userId: user.id, familyId: null, purpose: EMAIL_SIGN_IN_PURPOSE, now: new Date(ctx.now()) })
  return live && (await findLink(ctx.db, live.jti))
}

/** Consumes the link (one winner), confirms the address, then opens the session or the second-factor step. */
async function finish(ctx: IamContext, link: LinkWithCode, device: EmailSignInDevice, firstFactor: EmailAmr): Promise<EmailSignInResult> {
  const user = await findUserById(ctx.db, link.user_id)
  if (!user || isDeletionPending(user)) return { ok: false, code: 'link_invalid' }
  // a link mailed before the organization required its own sign-in: refused before it is spent
  const sso = await ssoRequiredFor(ctx.db, user.email)
  if (sso) return { ok: false, code: 'sso_required', connectionId: sso.connectionId }
  const now = new Date(ctx.now())
  const actor = { visitorRowId: device.visitor.id, ipAddress: device.ipAddress }
  const won = await ctx.db.transaction().execute(async (trx) => {
    if (!(await consumeLink(trx, ctx, link))) return false
    // the mail went to this address: using it proves the address while it is still the account's
    if (typeof link.data['email'] !== 'string' || link.data['email'].toLowerCase() !== user.email.toLowerCase()) return true
    const neverVerified = user.first_verified_at === null
    await trx
      .updateTable('users')
      .set({
        email_verified: true,
        first_verified_at: sql<Date>`coalesce(first_verified_at, ${now})`,
        updated_at: now,
        // whoever signed up with the owner's address chose this password: it goes with their setup
        ...(neverVerified ? { password_hash: null } : {}),
      })
      .where('id', '=', user.id)
      .execute()
    if (neverVerified) {
      await revokeFamilies(trx, { userId: user.id }, 'password_reset', now, ctx.sessionHooks)
      const removed = await removeSetup(trx, { userId: user.id, since: null })
      if (!nothingRemoved(removed)) {
        await recordSecurityEvent(trx, { type: 'squatter_setup_removed', userId: user.id, ...actor, details: { ...removed, by: 'email_sign_in' }, at: now })
      }
    }
    return true
  })
  if (!won) return { ok: false, code: 'link_used' }
  if (user.banned_until && user.banned_until.getTime() > now.getTime()) {
    const suspension = await findSuspension(ctx.db, user.id, now.getTime())
    return { ok: false, code: 'banned', suspension: suspension ?? { until: null, reason: null } }
  }
  const remember = link.data['remember'] === true
  // a sign-in that worked is no failure: the point its request spent of the IP's login budget goes
  // back, as for a right password (login-delay.ts), so it never counts towards the bot check after failures
  runAfterResponse(
    () => refundLoginIpPoints(ctx, device.ipAddress),
    (error) => ctx.log.warn('email sign-in: IP budget point not given back', { error: error.message }),
  )
  // read after the transaction: a squatter's factor removed above is no step for the owner
  if (await hasSecondFactor(ctx.db, user.id)) {
    const secondFactor = await issueChallenge(ctx, { userId: user.id, visitorRowId: device.visitor.id, remember, firstFactor })
    return { ok: true, secondFactor, userId: user.id }
  }
  const pair = await createSignInSession(
    ctx,
    user,
    device,
    remember,
    (sessionId) => ({ type: 'login_succeeded', userId: user.id, ...actor, details: { method: firstFactor === 'email' ? 'email_link' : 'email_code', sessionId }, at: now }),
    firstFactor,
  )
  return { ok: true, pair, userId: user.id }
}
