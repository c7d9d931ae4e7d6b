/**
 * Email change (POST /update/email): a custom flow with reason `change_email`, in two steps.
 *
 * 1. The request (this file's `changeEmail`): the new address is checked (format, disposable, MX)
 *    before anything is spent; the change_email link and code are consumed and a CONFIRM_EMAIL_CHANGE
 *    link is mailed to the NEW address. Nothing about the account changes: it keeps signing in with
 *    the old address, so a mistyped address never takes the account to a mailbox nobody owns.
 * 2. The confirmation (`confirmEmailChange`, reached through POST /auth/verify-email with that
 *    link): one transaction, locked on the user row, checks the account still has the address the
 *    request started from, consumes the link, moves the address (verified: its owner just read the
 *    link) and revokes every session but the one that asked. The unique index on the address
 *    decides a race with another account: a violation rolls all of it back, link included. Only
 *    then the old address is told, with its undo link (undo-email-change.ts).
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { checkEmailAddress } from '../email-checks/email-checks'
import { verifyEmailMail } from '../mail/templates'
import { mailLocaleOf } from '../mail/mail-locale'
import type { Locale } from '../../contract/locales'
import { maskEmail, startSessionlessFlow } from '../mfa/flows'
import { consumeLink } from '../mfa/links'
import type { LinkWithCode } from '../mfa/repository'
import { CHANGE_EMAIL_REASON, CONFIRM_EMAIL_CHANGE_PURPOSE } from '../mfa/purposes'
import { recordSecurityEvent } from '../security-events/repository'
import type { TokenPair } from '../sessions/session-service'
import { reissueSession } from '../mfa/reissue-session'
import { revokeFamilies } from '../sessions/sessions-repo'
import { findUserByEmail, isUniqueViolation } from '../users/users-repo'
import type { SessionUser } from '../mfa/session-flow'
import { attemptProof, locateFlow, type FlowProof } from '../mfa/flow-proof'
import { sendEmailChangedNotice } from './undo-email-change'
import { findPendingEmailChangeData } from './pending-email-change'
import { useLimiter } from '../rate-limits/registry'
import { codeFailure, fail, linkFailure, type ActionFailure, type ActionLimited } from '../mfa/action-failures'
import type { Actor } from '../security-events/repository'

const isChangeEmail = (purpose: string) => purpose === CHANGE_EMAIL_REASON

/** What the confirmation link carries: the change as it was asked for. */
interface PendingChange {
  /** the new address (the link checks read `email`) */
  email: string
  /** the address the change starts from: the link confirms nothing once the account has another */
  from: string
  /** visitors.id of the device that asked: there the link confirms as it is */
  device: number | null
  /** the session that asked keeps going; every other one ends when the address moves */
  keepFamily: string
  /** undoing the change removes what was set up since the asking session's sign-in proof */
  setUpSince: string
  ipAddress: string
}

export async function changeEmail(
  ctx: IamContext,
  input: { proof: FlowProof; newEmail: string; user: SessionUser; actor: Actor; signInProofAt: number },
): Promise<{ ok: true; pair: TokenPair; sentTo: string } | ActionFailure | ActionLimited> {
  const check = await locateFlow(ctx, input.proof, input.user, isChangeEmail)
  if (!check.ok) return check
  const { link } = check
  const email = await checkEmailAddress(input.newEmail, { ...ctx.config.emailChecks }, (msg, fields) => ctx.log.warn(msg, fields))
  if (!email.ok) return fail('email_invalid', email.reason)
  const code = await attemptProof(ctx, link, input.proof, { userId: input.user.userId, actor: input.actor })
  if (!code.ok) return code.code === 'rate_limited' ? code : codeFailure(code)
  const now = new Date(ctx.now())
  type Done = { kind: 'done'; oldEmail: string } | { kind: 'used' } | { kind: 'same' } | { kind: 'gone' } | { kind: 'taken' }
  const done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
    const user = await trx.selectFrom('users').select(['email']).where('id', '=', input.user.userId).forUpdate().executeTakeFirst()
    if (!user) return { kind: 'gone' }
    if (user.email.toLowerCase() === email.email.toLowerCase()) return { kind: 'same' }
    // checked again when the link is used: this early answer spares a mail to an address in use
    if (await findUserByEmail(trx, email.email)) return { kind: 'taken' }
    if (!(await consumeLink(trx, ctx, code.link))) return { kind: 'used' }
    return { kind: 'done', oldEmail: user.email }
  })
  if (done.kind === 'used') return linkFailure('used')
  if (done.kind === 'same') return fail('email_unchanged')
  if (done.kind === 'gone') return fail('relogin_required')
  if (done.kind === 'taken') return fail('email_in_use')
  const pending: PendingChange = {
    email: email.email,
    from: done.oldEmail,
    device: input.user.visitorRowId,
    keepFamily: input.user.sessionId,
    setUpSince: new Date(Math.min(input.signInProofAt, now.getTime())).toISOString(),
    ipAddress: input.actor.ipAddress,
  }
  const sent = await sendChangeConfirmation(ctx, input.user.userId, pending, await mailLocaleOf(ctx.db, input.user.userId, input.actor.locale))
  if (!sent) return fail('confirmation_mail_failed')
  ctx.log.info('email change asked', { userId: input.user.userId })
  const pair = await reissueSession(ctx, input.user, input.actor)
  if (!pair) return fail('relogin_required')
  return { ok: true, pair, sentTo: maskEmail(email.email) }
}

/** Mails the confirmation link to the new address; a newer change ends the link of an older one. */
async function sendChangeConfirmation(ctx: IamContext, userId: number, pending: PendingChange, locale: Locale): Promise<boolean> {
  const ttlMs = ctx.config.magic_links.verifyEmailExpiresInMs
  const result = await startSessionlessFlow(ctx, {
    purpose: CONFIRM_EMAIL_CHANGE_PURPOSE,
    // the verification page posts the link (a mail scanner opening it confirms nothing)
    path: 'verifyEmail',
    userId,
    data: { ...pending },
    expiresInMs: ttlMs,
    onLive: 'replace',
    mail: (issued) => ({
      to: pending.email,
      links: [issued.url],
      content: verifyEmailMail({ siteName: ctx.config.email.siteName, locale, link: issued.url, linkTtlMs: ttlMs }),
    }),
  })
  return result.ok
}

/**
 * Mails the waiting change's confirmation again (POST /update/email/resend): a new link to the same
 * new address with the same pending change; the older link stops working (onLive: 'replace'). Under
 * the verification mail's per-user limit, as it is the same kind of mail to the same kind of address.
 */
export async function resendEmailChange(ctx: IamContext, userId: number, requestLocale?: Locale): Promise<{ ok: true; sentTo: string } | ActionFailure | ActionLimited> {
  const decision = await useLimiter(ctx, 'resendVerification').consume({ userId })
  if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
  const data = await findPendingEmailChangeData(ctx.db, userId, new Date(ctx.now()))
  const pending = data ? pendingFromData(data) : null
  if (!pending) return fail('email_change_not_pending')
  const sent = await sendChangeConfirmation(ctx, userId, pending, await mailLocaleOf(ctx.db, userId, requestLocale))
  if (!sent) return fail('confirmation_mail_failed')
  ctx.log.info('email change confirmation sent again', { userId })
  return { ok: true, sentTo: maskEmail(pending.email) }
}

/** The pending change a link carries, or null for a link without one (never issued by this file). */
const pendingOf = (link: LinkWithCode): PendingChange | null => pendingFromData(link.data)

function pendingFromData(d: Record<string, unknown>): PendingChange | null {
  const text = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : null)
  const email = text('email')
  const from = text('from')
  const keepFamily = text('keepFamily')
  const setUpSince = text('setUpSince')
  if (!email || !from || !keepFamily || !setUpSince) return null
  return { email, from, keepFamily, setUpSince, device: typeof d['device'] === 'number' ? d['device'] : null, ipAddress: text('ipAddress') ?? '' }
}

/** True when the link is opened on the device that asked for the change. */
export const isAskingDevice = (link: LinkWithCode, actor: Actor): boolean => {
  const device = link.data['device']
  return typeof device === 'number' && device === actor.visitorRowId
}

/**
 * Step 2: the link mailed to the new address moves the account there. The caller (verify-email.ts)
 * checked the link and the device or password proof.
 */
export async function confirmEmailChange(ctx: IamContext, link: LinkWithCode, actor: Actor): Promise<{ ok: true } | ActionFailure> {
  const pending = pendingOf(link)
  if (!pending) return linkFailure('invalid')
  const now = new Date(ctx.now())
  type Done = { kind: 'done'; revoked: number } | { kind: 'used' } | { kind: 'stale' }
  let done: Done
  try {
    done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
      const user = await trx.selectFrom('users').select(['email']).where('id', '=', link.user_id).forUpdate().executeTakeFirst()
      // the account moved on (another change, an undo) or is gone: this link confirms nothing
      if (!user || user.email.toLowerCase() !== pending.from.toLowerCase()) return { kind: 'stale' }
      if (!(await consumeLink(trx, ctx, link))) return { kind: 'used' }
      // a unique violation (another account took the address meanwhile) aborts all of it, link included
      await trx
        .updateTable('users')
        .set({ email: pending.email, email_verified: true, first_verified_at: sql<Date>`coalesce(first_verified_at, ${now})`, updated_at: now })
        .where('id', '=', link.user_id)
        .execute()
      const revoked = await revokeFamilies(trx, { userId: link.user_id, exceptFamilyId: pending.keepFamily }, 'email_changed', now, ctx.sessionHooks)
      await recordSecurityEvent(trx, {
        type: 'email_changed',
        userId: link.user_id,
        visitorRowId: actor.visitorRowId,
        ipAddress: actor.ipAddress,
        details: { from: maskEmail(user.email), to: maskEmail(pending.email), revokedSessions: revoked.length },
        at: now,
      })
      return { kind: 'done', revoked: revoked.length }
    })
  } catch (error) {
    if (isUniqueViolation(error)) return fail('new_address_taken')
    throw error
  }
  if (done.kind === 'used') return linkFailure('used')
  if (done.kind === 'stale') return fail('address_stale')
  ctx.log.info('email changed', { userId: link.user_id, revokedSessions: done.revoked })
  // The change is committed: a notice that cannot be delivered is logged, not a failed request.
  const change = {
    userId: link.user_id,
    oldEmail: pending.from,
    newEmail: pending.email,
    ipAddress: pending.ipAddress || actor.ipAddress,
    at: now,
    setUpSince: new Date(pending.setUpSince),
    requestLocale: actor.locale,
  }
  sendEmailChangedNotice(ctx, change).catch((error: Error) => ctx.log.error('email-change notice not delivered', { userId: link.user_id, error: error.message }))
  return { ok: true }
}
