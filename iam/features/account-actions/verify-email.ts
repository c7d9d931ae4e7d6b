/**
 * Email verification: signup and an email change mail a link to the address; the
 * account works at once, but `email_verified` stays false until the link is used. The link binds
 * to the user id (its `visitor` is a random handle, as for a password reset) and carries the
 * address it was sent to: it verifies only while that is still the account's address, so a link
 * mailed before an email change can never vouch for the address that replaced it.
 *
 * The link also names the device that asked for it (signup, email change, resend). Opened there,
 * it verifies as it is. Opened on any other device it verifies only with the account's password
 * (the owner reading mail on a second device types it) or with a new password: someone may have
 * signed up with this address, and a person who never did chooses a password, which ends every
 * session and, on an account never verified before, removes what was set up before it
 * (remove-setup.ts). A squatter who asked for the link on their own device never sees it: it goes
 * to the owner's mailbox.
 */
import type { Locale } from '../../contract/locales'
import { mailLocaleOf } from '../mail/mail-locale'
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { admitMailTo } from '../mail/address-cap'
import { verifyEmailMail } from '../mail/templates'
import { startSessionlessFlow } from '../mfa/flows'
import type { LinkParams } from '../mfa/link-token'
import { consumeLink } from '../mfa/links'
import { CONFIRM_EMAIL_CHANGE_PURPOSE, EMAIL_VERIFICATION_PURPOSE } from '../mfa/purposes'
import { useLimiter } from '../rate-limits/registry'
import { recordSecurityEvent } from '../security-events/repository'
import { checkNewPassword, getPasswordHasher, type NewPasswordWarning } from '../passwords/password-service'
import { revokeFamilies } from '../sessions/sessions-repo'
import { proveAccountPassword } from '../users/prove-password'
import { findUserById } from '../users/users-repo'
import { nothingRemoved, removeSetup } from './remove-setup'
import { fail, linkFailure, type ActionFailure, type ActionLimited } from '../mfa/action-failures'
import type { Actor } from '../security-events/repository'
import { checkAddressLink, previewLinkPurpose } from '../mfa/link-checks'
import { runAfterResponse } from '../../lib/background'
import { confirmEmailChange, isAskingDevice } from './email-change'

// an email change's confirmation link lands on the same page and routes (email-change.ts)
const isVerification = (purpose: string) => purpose === EMAIL_VERIFICATION_PURPOSE || purpose === CONFIRM_EMAIL_CHANGE_PURPOSE

/**
 * Issues a verification link for `email` (ending older ones) and mails it there; `device`:
 * visitors.id of the asking device. Over the address's cap (rate_limiters.mailbox) nothing is
 * issued or sent, and the answer is still ok: the caller's own limit (resend: per user) is the one
 * that answers 429.
 */
export async function sendVerificationMail(
  ctx: IamContext,
  user: { id: number; email: string },
  device: number | null,
  requestLocale?: Locale,
): Promise<{ ok: true } | { ok: false }> {
  if (!(await admitMailTo(ctx, { email: user.email, userId: user.id, kind: 'email_verification' }))) return { ok: true }
  const locale = await mailLocaleOf(ctx.db, user.id, requestLocale)
  const ttlMs = ctx.config.magic_links.verifyEmailExpiresInMs
  const result = await startSessionlessFlow(ctx, {
    purpose: EMAIL_VERIFICATION_PURPOSE,
    path: 'verifyEmail',
    userId: user.id,
    data: { email: user.email, device },
    expiresInMs: ttlMs,
    onLive: 'replace',
    mail: (issued) => ({
      to: user.email,
      links: [issued.url],
      content: verifyEmailMail({ siteName: ctx.config.email.siteName, locale, link: issued.url, linkTtlMs: ttlMs }),
    }),
  })
  return result.ok ? { ok: true } : { ok: false }
}

/** Mails the link after the response: a slow or failing mail server never fails a signup. */
export function sendVerificationMailLater(ctx: IamContext, user: { id: number; email: string }, device: number | null, requestLocale?: Locale): void {
  runAfterResponse(
    async () => {
      await sendVerificationMail(ctx, user, device, requestLocale)
    },
    (error) => ctx.log.error('verification mail not sent', { userId: user.id, error: error.message }),
  )
}

export const previewVerificationLink = (ctx: IamContext, params: LinkParams) => previewLinkPurpose(ctx, params, isVerification)

/** Proof for a link opened on another device than the one that asked for it. */
export type VerifyProof = { password: string } | { newPassword: string; confirmedPassword: string }

/**
 * Consumes the link and marks the address verified, if it is still the account's address. On
 * another device than the one that asked, only with `proof` (the module comment says why).
 */
export async function verifyEmail(
  ctx: IamContext,
  input: { params: LinkParams; actor: Actor; proof?: VerifyProof },
): Promise<{ ok: true; signedOut: boolean; warnings: NewPasswordWarning[] } | ActionFailure | ActionLimited> {
  const check = await checkAddressLink(ctx, input.params, isVerification)
  if (!check.ok) return check
  const { link, email: sentTo } = check
  if (link.purpose === CONFIRM_EMAIL_CHANGE_PURPOSE) return confirmChange(ctx, link, input)
  const device = link.data['device']
  const sameDevice = typeof device === 'number' && input.actor.visitorRowId === device
  const { proof } = input
  if (!sameDevice && !proof) return fail('password_required')
  const account = await findUserById(ctx.db, link.user_id)
  if (!account) return linkFailure('invalid')
  let newHash: string | null = null
  let warnings: NewPasswordWarning[] = []
  if (proof && 'password' in proof) {
    // an account without a password (provider sign-in) cannot prove one: it chooses a new one instead
    const proved = await proveAccountPassword(ctx, { email: account.email, passwordHash: account.password_hash, password: proof.password, ...input.actor })
    if (!proved.ok) return proved.code === 'rate_limited' ? proved : fail('wrong_password')
  } else if (proof) {
    if (proof.newPassword !== proof.confirmedPassword) return fail('passwords_mismatch')
    const verdict = await checkNewPassword(ctx, proof.newPassword, { email: account.email, name: account.name })
    if (!verdict.ok) return fail(verdict.code === 'breach_check_unavailable' ? 'password_check_unavailable' : 'password_rejected', verdict.reason)
    warnings = verdict.warnings
    newHash = await getPasswordHasher(ctx).hash(proof.newPassword)
  }
  const now = new Date(ctx.now())
  type Done = { kind: 'done'; signedOut: boolean } | { kind: 'used' } | { kind: 'stale' }
  const done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
    // the row lock orders this against an email change of the same account
    const user = await trx.selectFrom('users').select(['email', 'first_verified_at']).where('id', '=', link.user_id).forUpdate().executeTakeFirst()
    if (!user || !sentTo || user.email.toLowerCase() !== sentTo.toLowerCase()) return { kind: 'stale' }
    if (!(await consumeLink(trx, ctx, link))) return { kind: 'used' }
    await trx
      .updateTable('users')
      .set({
        email_verified: true,
        first_verified_at: sql<Date>`coalesce(first_verified_at, ${now})`,
        updated_at: now,
        ...(newHash ? { password_hash: newHash } : {}),
      })
      .where('id', '=', link.user_id)
      .execute()
    const event = { userId: link.user_id, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, at: now }
    await recordSecurityEvent(trx, { ...event, type: 'email_verified', details: { with: newHash ? 'new_password' : proof ? 'password' : 'device' } })
    if (!newHash) return { kind: 'done', signedOut: false }
    // a new password: whoever held the old one is out, everywhere
    await revokeFamilies(trx, { userId: link.user_id }, 'password_reset', now, ctx.sessionHooks)
    await recordSecurityEvent(trx, { ...event, type: 'password_reset', details: { by: 'email_verification' } })
    if (user.first_verified_at === null) {
      const removed = await removeSetup(trx, { userId: link.user_id, since: null })
      if (!nothingRemoved(removed)) await recordSecurityEvent(trx, { ...event, type: 'squatter_setup_removed', details: { ...removed, by: 'email_verification' } })
    }
    return { kind: 'done', signedOut: true }
  })
  if (done.kind === 'used') return linkFailure('used')
  if (done.kind === 'stale') return fail('address_stale')
  ctx.log.info('email verified', { userId: link.user_id, newPassword: !!newHash })
  return { ok: true, signedOut: done.signedOut, warnings }
}

/**
 * An email change's link: on the device that asked it confirms as it is; elsewhere only with the
 * account's password. Choosing a new password is no proof here: whoever reads a mistyped address
 * must not get the account by opening the link.
 */
async function confirmChange(
  ctx: IamContext,
  link: Parameters<typeof confirmEmailChange>[1],
  input: { actor: Actor; proof?: VerifyProof },
): Promise<{ ok: true; signedOut: boolean; warnings: NewPasswordWarning[] } | ActionFailure | ActionLimited> {
  const { proof } = input
  if (!isAskingDevice(link, input.actor)) {
    if (!proof || !('password' in proof)) return fail('password_required')
    const account = await findUserById(ctx.db, link.user_id)
    if (!account) return linkFailure('invalid')
    const proved = await proveAccountPassword(ctx, { email: account.email, passwordHash: account.password_hash, password: proof.password, ...input.actor })
    if (!proved.ok) return proved.code === 'rate_limited' ? proved : fail('wrong_password')
  }
  const done = await confirmEmailChange(ctx, link, input.actor)
  return done.ok ? { ok: true, signedOut: false, warnings: [] } : done
}

/** POST /auth/resend-verification: a new link to the current address, limited per user. */
export async function resendVerification(
  ctx: IamContext,
  userId: number,
  device: number,
  requestLocale?: Locale,
): Promise<{ ok: true } | ActionFailure | ActionLimited> {
  const decision = await useLimiter(ctx, 'resendVerification').consume({ userId })
  if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
  const user = await findUserById(ctx.db, userId)
  if (!user) return fail('relogin_required')
  if (user.email_verified) return fail('already_verified')
  const sent = await sendVerificationMail(ctx, user, device, requestLocale)
  return sent.ok ? { ok: true } : fail('verification_mail_failed')
}
