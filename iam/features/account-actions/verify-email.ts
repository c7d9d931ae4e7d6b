/**
 * Email verification (issue 11, 4.3): signup and an email change mail a link to the address; the
 * account works at once, but `email_verified` stays false until the link is used. The link binds
 * to the user id (its `visitor` is a random handle, as for a password reset) and carries the
 * address it was sent to: it verifies only while that is still the account's address, so a link
 * mailed before an email change can never vouch for the address that replaced it.
 */
import type { IamContext } from '../../context'
import { admitMailTo } from '../mail/address-cap'
import { verifyEmailMail } from '../mail/templates'
import { startSessionlessFlow } from '../mfa/flows'
import type { LinkParams } from '../mfa/link-token'
import { consumeLink } from '../mfa/links'
import { EMAIL_VERIFICATION_PURPOSE } from '../mfa/purposes'
import { useLimiter } from '../rate-limits/registry'
import { recordSecurityEvent } from '../security-events/repository'
import { findUserById } from '../users/users-repo'
import { fail, linkFailure, type ActionFailure, type ActionLimited, type Actor } from './outcomes'
import { checkAddressLink, previewLinkPurpose } from './link-preview'
import { runAfterResponse } from '../../lib/background'

const isVerification = (purpose: string) => purpose === EMAIL_VERIFICATION_PURPOSE

/**
 * Issues a verification link for `email` (ending older ones) and mails it there. Over the
 * address's cap (rate_limiters.mailbox) nothing is issued or sent, and the answer is still ok:
 * the caller's own limit (resend: per user) is the one that answers 429.
 */
export async function sendVerificationMail(ctx: IamContext, user: { id: number; email: string }): Promise<{ ok: true } | { ok: false }> {
  if (!(await admitMailTo(ctx, { email: user.email, userId: user.id, kind: 'email_verification' }))) return { ok: true }
  const ttlMs = ctx.config.magic_links.verifyEmailExpiresInMs
  const result = await startSessionlessFlow(ctx, {
    purpose: EMAIL_VERIFICATION_PURPOSE,
    path: 'verifyEmail',
    userId: user.id,
    data: { email: user.email },
    expiresInMs: ttlMs,
    onLive: 'replace',
    mail: (issued) => ({
      to: user.email,
      links: [issued.url],
      content: verifyEmailMail({ siteName: ctx.config.email.siteName, link: issued.url, linkTtlMs: ttlMs }),
    }),
  })
  return result.ok ? { ok: true } : { ok: false }
}

/** Mails the link after the response: a slow or failing mail server never fails a signup. */
export function sendVerificationMailLater(ctx: IamContext, user: { id: number; email: string }): void {
  runAfterResponse(
    async () => {
      await sendVerificationMail(ctx, user)
    },
    (error) => ctx.log.error('verification mail not sent', { userId: user.id, error: error.message }),
  )
}

export const previewVerificationLink = (ctx: IamContext, params: LinkParams) => previewLinkPurpose(ctx, params, isVerification)

/** Consumes the link and marks the address verified, if it is still the account's address. */
export async function verifyEmail(ctx: IamContext, input: { params: LinkParams; actor: Actor }): Promise<{ ok: true } | ActionFailure> {
  const check = await checkAddressLink(ctx, input.params, isVerification)
  if (!check.ok) return check
  const { link, email: sentTo } = check
  const now = new Date(ctx.now())
  type Done = 'done' | 'used' | 'stale'
  const done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
    // the row lock orders this against an email change of the same account
    const user = await trx.selectFrom('users').select(['email']).where('id', '=', link.user_id).forUpdate().executeTakeFirst()
    if (!user || !sentTo || user.email.toLowerCase() !== sentTo.toLowerCase()) return 'stale'
    if (!(await consumeLink(trx, ctx, link))) return 'used'
    await trx.updateTable('users').set({ email_verified: true, updated_at: now }).where('id', '=', link.user_id).execute()
    await recordSecurityEvent(trx, {
      type: 'email_verified',
      userId: link.user_id,
      visitorRowId: input.actor.visitorRowId,
      ipAddress: input.actor.ipAddress,
      at: now,
    })
    return 'done'
  })
  if (done === 'used') return linkFailure('used')
  if (done === 'stale') return fail('address_stale')
  ctx.log.info('email verified', { userId: link.user_id })
  return { ok: true }
}

/** POST /auth/resend-verification: a new link to the current address, limited per user. */
export async function resendVerification(
  ctx: IamContext,
  userId: number,
): Promise<{ ok: true } | ActionFailure | ActionLimited> {
  const decision = await useLimiter(ctx, 'resendVerification').consume({ userId })
  if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
  const user = await findUserById(ctx.db, userId)
  if (!user) return fail('relogin_required')
  if (user.email_verified) return fail('already_verified')
  const sent = await sendVerificationMail(ctx, user)
  return sent.ok ? { ok: true } : fail('verification_mail_failed')
}
