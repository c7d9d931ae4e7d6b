/**
 * Password reset (POST /auth/forgot-password, GET/POST /auth/reset-password).
 * The request answers the same whatever the address: the lookup and the mail run after the
 * response, off the request path, so neither the body nor the timing tells an account exists.
 * The link binds to the user id, never a device (its `visitor` is a random handle). A completed
 * reset revokes every session of the user (and, when asked, every API token) and mails a notice
 * naming the API tokens still live.
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { normalizeEmail } from '../email-checks/email-checks'
import { revokeAllInTransaction } from '../api-tokens/revoke-all'
import { listLiveTokenSummaries } from '../api-tokens/user-tokens'
import { admitMailTo } from '../mail/address-cap'
import { chooseLocale, type Locale } from '../../contract/locales'
import { getMailer } from '../mail/mailer'
import { mailNoAccount } from '../mail/no-account'
import { runAfterResponse } from '../../lib/background'
import { passwordChangedNotice, passwordResetMail, useProviderMail } from '../mail/templates'
import { startSessionlessFlow } from '../mfa/flows'
import type { LinkParams } from '../mfa/link-token'
import { checkLink, consumeLink } from '../mfa/links'
import { PASSWORD_RESET_PURPOSE } from '../mfa/purposes'
import { checkNewPassword, getPasswordHasher, type NewPasswordWarning } from '../passwords/password-service'
import { useLimiter } from '../rate-limits/registry'
import { recordSecurityEvent } from '../security-events/repository'
import { revokeFamilies } from '../sessions/sessions-repo'
import { findUserByEmail, findUserById } from '../users/users-repo'
import { isDeletionDue } from '../account-deletion/deletion-state'
import { mailRestoreLink } from '../account-deletion/restore-link'
import { fail, linkFailure, type ActionFailure, type ActionLimited } from '../mfa/action-failures'
import type { Actor } from '../security-events/repository'
import { previewLinkPurpose } from '../mfa/link-checks'
import { nothingRemoved, removeSetup } from './remove-setup'

const isReset = (purpose: string) => purpose === PASSWORD_RESET_PURPOSE

/** The one body of POST /auth/forgot-password (no date: identical bytes for every address). */
export const FORGOT_PASSWORD_BODY = Object.freeze({
  ok: true,
  message: 'If an account exists for this address, a password reset link has been sent.',
})

/**
 * Rate limits (per IP, and per IP + address so one client cannot flood one mailbox), then
 * schedules the lookup and mail. Both branches do the same request-path work. The cap per address
 * over every client (rate_limiters.mailbox) is applied by the scheduled part, off the request path.
 */
export async function requestPasswordReset(
  ctx: IamContext,
  input: { email: string; ipAddress: string; requestLocale?: Locale; requestTimeZone?: string | null | undefined },
): Promise<{ ok: true } | ActionLimited> {
  const email = normalizeEmail(input.email)
  const limiter = useLimiter(ctx, 'forgotPassword')
  for (const facts of [{ ip: input.ipAddress }, { ip: input.ipAddress, email }]) {
    const decision = await limiter.consume(facts)
    if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
  }
  // after the response, tracked so a graceful shutdown still sends it (lib/background.ts); an
  // unknown address is mailed too (mail/no-account.ts), so both cost the same work after the answer
  runAfterResponse(
    async () => {
      const known = await sendResetMail(ctx, email, input.ipAddress, input.requestLocale, input.requestTimeZone)
      if (!known) await mailNoAccount(ctx, { email, asked: 'forgot_password', flow: { purpose: PASSWORD_RESET_PURPOSE, withCode: false }, requestLocale: input.requestLocale, requestTimeZone: input.requestTimeZone })
    },
    (error) => ctx.log.error('password reset mail failed', { error: error.message }),
  )
  return { ok: true }
}

/**
 * Looks the address up and mails what it needs: a reset link, or the way to the provider it signs
 * in with; false when no account uses the address. Also called, awaited, for a platform
 * administrator's "send a reset link" (features/admin).
 */
export async function sendResetMail(ctx: IamContext, email: string, ipAddress: string, requestLocale?: Locale, requestTimeZone?: string | null): Promise<boolean> {
  const user = await findUserByEmail(ctx.db, email)
  // past its due moment the account is the purge's: as no account (login-service.ts does the same)
  if (!user || isDeletionDue(user, ctx.now())) return false
  // a disabled account cannot use a reset: its owner gets the restore link instead (a new one,
  // ending the one mailed before), under the same address cap (account-deletion/restore-link.ts)
  if (user.deletion_due_at) {
    await mailRestoreLink(ctx, { user: { ...user, deletion_due_at: user.deletion_due_at }, asked: 'forgot_password', visitorRowId: null, ipAddress, requestLocale, requestTimeZone })
    return true
  }
  const { siteName } = ctx.config.email
  const locale = chooseLocale(user.locale, requestLocale)
  // after the response like the lookup: a capped address is answered, and timed, as any other
  if (!(await admitMailTo(ctx, { email: user.email, userId: user.id, kind: user.password_hash ? 'password_reset' : 'sign_in_help' }))) return true
  const providers = user.password_hash
    ? []
    : await ctx.db.selectFrom('oauth_identities').select('provider').distinct().where('user_id', '=', user.id).execute()
  // an account that signs in with a provider is pointed there; one with neither a password nor a
  // provider (its password was cleared when an email change was undone) gets a link to set one
  if (providers.length > 0) {
    const loginUrl = new URL('/login', ctx.config.magic_links.domain).toString()
    await getMailer(ctx).send({ to: user.email, links: [loginUrl], content: useProviderMail({ siteName, locale, providers: providers.map((p) => p.provider), loginUrl }) })
    return true
  }
  const result = await startSessionlessFlow(ctx, {
    purpose: PASSWORD_RESET_PURPOSE,
    path: 'passwordReset',
    userId: user.id,
    // the address the link went to: using it proves that address (resetPassword)
    data: { email: user.email },
    onLive: 'replace',
    mail: (issued) => ({
      to: user.email,
      links: [issued.url],
      content: passwordResetMail({ siteName, locale, link: issued.url, linkTtlMs: ctx.config.magic_links.expiresInMs }),
    }),
  })
  if (!result.ok) throw new Error(`reset flow not started: ${result.code}`)
  await recordSecurityEvent(ctx.db, { type: 'password_reset_requested', userId: user.id, visitorRowId: null, ipAddress, at: new Date(ctx.now()) })
  return true
}

export const previewResetLink = (ctx: IamContext, params: LinkParams) => previewLinkPurpose(ctx, params, isReset)

export async function resetPassword(
  ctx: IamContext,
  input: { params: LinkParams; password: string; confirmedPassword: string; actor: Actor; revokeApiTokens?: boolean },
): Promise<{ ok: true; warnings: NewPasswordWarning[] } | ActionFailure> {
  const check = await checkLink(ctx, input.params, isReset)
  if (!check.ok) return linkFailure(check.code)
  const { link } = check
  if (input.password !== input.confirmedPassword) {
    return fail('passwords_mismatch')
  }
  const user = await findUserById(ctx.db, link.user_id)
  if (!user) return linkFailure('invalid')
  const verdict = await checkNewPassword(ctx, input.password, { email: user.email, name: user.name })
  if (!verdict.ok) return fail(verdict.code === 'breach_check_unavailable' ? 'password_check_unavailable' : 'password_rejected', verdict.reason)
  const hash = await getPasswordHasher(ctx).hash(input.password)
  const now = new Date(ctx.now())
  const revoked = await ctx.db.transaction().execute(async (trx) => {
    if (!(await consumeLink(trx, ctx, link))) return null
    // the link went to this address (when it still is the account's): the reset proves it
    const proves = typeof link.data['email'] === 'string' && link.data['email'].toLowerCase() === user.email.toLowerCase()
    await trx
      .updateTable('users')
      .set({
        password_hash: hash,
        updated_at: now,
        ...(proves ? { email_verified: true, first_verified_at: sql<Date>`coalesce(first_verified_at, ${now})` } : {}),
      })
      .where('id', '=', user.id)
      .execute()
    const families = await revokeFamilies(trx, { userId: user.id }, 'password_reset', now, ctx.sessionHooks)
    // never verified: whoever signed up with this address may have set up ways in (remove-setup.ts)
    const removed = user.first_verified_at === null ? await removeSetup(trx, { userId: user.id, since: null }) : null
    if (removed && !nothingRemoved(removed)) {
      await recordSecurityEvent(trx, {
        type: 'squatter_setup_removed',
        userId: user.id,
        visitorRowId: input.actor.visitorRowId,
        ipAddress: input.actor.ipAddress,
        details: { ...removed, by: 'password_reset' },
        at: now,
      })
    }
    // API tokens outlive sessions: whoever recovers the account may end them in the same step
    const revokedTokens =
      (input.revokeApiTokens
        ? await revokeAllInTransaction(trx, { userId: user.id, ipAddress: input.actor.ipAddress, visitorRowId: input.actor.visitorRowId, cause: 'password_reset', at: now })
        : 0) + (removed?.apiTokens ?? 0)
    await recordSecurityEvent(trx, {
      type: 'password_reset',
      userId: user.id,
      visitorRowId: input.actor.visitorRowId,
      ipAddress: input.actor.ipAddress,
      details: { revokedSessions: families.length, revokedApiTokens: revokedTokens },
      at: now,
    })
    return { families, revokedTokens }
  })
  if (!revoked) return linkFailure('used')
  ctx.log.info('password reset', { userId: user.id, revokedSessions: revoked.families.length, revokedApiTokens: revoked.revokedTokens })
  // the notice names the tokens still live (names and public identifiers, never a raw token)
  const tokens = await listLiveTokenSummaries(ctx.db, user.id, now)
  const content = passwordChangedNotice({
    siteName: ctx.config.email.siteName,
    locale: chooseLocale(user.locale, input.actor.locale),
    timeZone: user.time_zone ?? input.actor.timeZone,
    when: now,
    ipAddress: input.actor.ipAddress,
    tokens,
    revokedTokens: revoked.revokedTokens,
  })
  getMailer(ctx)
    .send({ to: user.email, content })
    .catch((error: Error) => ctx.log.error('password-changed notice not delivered', { userId: user.id, error: error.message }))
  return { ok: true, warnings: verdict.warnings }
}
