/**
 * Undoing an email change. The OLD address is told of a change with a link that,
 * for `magic_links.undoEmailChangeExpiresInMs` (7 days by default), puts it back: a hijacker who
 * moved the address cannot keep the account from its owner. Using the link restores the address
 * (verified: the owner just proved they read it), signs every session out, since whoever made the
 * change may hold them, and ends the undo links issued after it (each mailed to an address the
 * hijacker may control, which could otherwise be used to move the account back again).
 *
 * Whoever moved the address may also have added ways in: a second factor, passkeys, API tokens,
 * provider links, a password set through the new address. The change needed a recent sign-in
 * proof of the session that made it (http/reauthenticate.ts), so everything such a session could
 * add lies after that proof: the link carries its moment (`setUpSince`). Undoing removes each of them
 * (remove-setup.ts; a password set since is cleared, so the owner sets a new one through
 * "Forgot password" at the restored address) and mails the restored address what was removed.
 */
import type { Locale } from '../../contract/locales'
import { mailReaderOf } from '../mail/mail-locale'
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { listLiveTokenSummaries } from '../api-tokens/user-tokens'
import { getMailer } from '../mail/mailer'
import { emailChangedNotice, emailChangeUndoneNotice } from '../mail/templates'
import { maskEmail, startSessionlessFlow } from '../mfa/flows'
import type { LinkParams } from '../mfa/link-token'
import { consumeLink } from '../mfa/links'
import { UNDO_EMAIL_CHANGE_PURPOSE } from '../mfa/purposes'
import { recordSecurityEvent } from '../security-events/repository'
import { revokeFamilies } from '../sessions/sessions-repo'
import { isUniqueViolation } from '../users/users-repo'
import { fail, linkFailure, type ActionFailure } from '../mfa/action-failures'
import type { Actor } from '../security-events/repository'
import { checkAddressLink, previewLinkPurpose } from '../mfa/link-checks'
import { removeSetup, type RemovedSetup } from './remove-setup'

const isUndo = (purpose: string) => purpose === UNDO_EMAIL_CHANGE_PURPOSE

/**
 * Mails the old address the change notice with its undo link and the account's live API tokens.
 * Runs after the change committed: a failure is logged, never the request's.
 */
export async function sendEmailChangedNotice(
  ctx: IamContext,
  change: { userId: number; oldEmail: string; newEmail: string; ipAddress: string; at: Date; setUpSince: Date; requestLocale?: Locale | undefined; requestTimeZone?: string | null | undefined },
): Promise<void> {
  const { locale, timeZone } = await mailReaderOf(ctx.db, change.userId, { locale: change.requestLocale, timeZone: change.requestTimeZone })
  const ttlMs = ctx.config.magic_links.undoEmailChangeExpiresInMs
  const tokens = await listLiveTokenSummaries(ctx.db, change.userId, change.at)
  const notice = (undoLink?: string) =>
    emailChangedNotice({
      siteName: ctx.config.email.siteName,
      locale,
      timeZone,
      newEmailMasked: maskEmail(change.newEmail),
      when: change.at,
      ipAddress: change.ipAddress,
      tokens,
      ...(undoLink ? { undoLink, undoTtlMs: ttlMs } : {}),
    })
  const result = await startSessionlessFlow(ctx, {
    purpose: UNDO_EMAIL_CHANGE_PURPOSE,
    path: 'undoEmailChange',
    userId: change.userId,
    // undoing removes what was set up since the changing session's sign-in proof (remove-setup.ts)
    data: { email: change.oldEmail, setUpSince: change.setUpSince.toISOString() },
    expiresInMs: ttlMs,
    // an earlier undo link (an earlier change) must keep working: it restores an older address
    onLive: 'add',
    mail: (issued) => ({ to: change.oldEmail, links: [issued.url], content: notice(issued.url) }),
  })
  if (!result.ok) throw new Error(`undo link not sent: ${result.code}`)
}

export const previewUndoLink = (ctx: IamContext, params: LinkParams) => previewLinkPurpose(ctx, params, isUndo)

export async function undoEmailChange(ctx: IamContext, input: { params: LinkParams; actor: Actor }): Promise<{ ok: true } | ActionFailure> {
  const check = await checkAddressLink(ctx, input.params, isUndo)
  if (!check.ok) return check
  const { link, email: restore } = check
  if (!restore) return linkFailure('invalid')
  const now = new Date(ctx.now())
  const setUpSince = typeof link.data['setUpSince'] === 'string' ? new Date(link.data['setUpSince']) : null
  // a link from before this rule carries no moment: it was issued right after its change
  const since = setUpSince && !Number.isNaN(setUpSince.getTime()) ? setUpSince : link.created_at
  type Done = { kind: 'done'; from: string; revoked: number; removed: RemovedSetup; passwordCleared: boolean } | { kind: 'used' } | { kind: 'gone' }
  let done: Done
  try {
    done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
      const user = await trx.selectFrom('users').select(['email']).where('id', '=', link.user_id).forUpdate().executeTakeFirst()
      if (!user) return { kind: 'gone' }
      if (!(await consumeLink(trx, ctx, link))) return { kind: 'used' }
      // a unique violation (the address was taken meanwhile) rolls all of this back
      await trx
        .updateTable('users')
        .set({ email: restore, email_verified: true, first_verified_at: sql<Date>`coalesce(first_verified_at, ${now})`, updated_at: now })
        .where('id', '=', link.user_id)
        .execute()
      await trx
        .updateTable('magic_links')
        .set({ consumed_at: now })
        .where('user_id', '=', link.user_id)
        .where('purpose', '=', UNDO_EMAIL_CHANGE_PURPOSE)
        .where('consumed_at', 'is', null)
        .where('created_at', '>=', link.created_at)
        .execute()
      const revoked = await revokeFamilies(trx, { userId: link.user_id }, 'email_change_undone', now, ctx.sessionHooks)
      const removed = await removeSetup(trx, { userId: link.user_id, since })
      const passwordSince = await trx
        .selectFrom('security_events')
        .select('id')
        .where('user_id', '=', link.user_id)
        .where('type', 'in', ['password_reset', 'password_changed'])
        .where('created_at', '>=', since)
        .limit(1)
        .executeTakeFirst()
      if (passwordSince) await trx.updateTable('users').set({ password_hash: null }).where('id', '=', link.user_id).execute()
      await recordSecurityEvent(trx, {
        type: 'email_change_undone',
        userId: link.user_id,
        visitorRowId: input.actor.visitorRowId,
        ipAddress: input.actor.ipAddress,
        details: { from: maskEmail(user.email), to: maskEmail(restore), revokedSessions: revoked.length, removed, passwordCleared: !!passwordSince },
        at: now,
      })
      return { kind: 'done', from: user.email, revoked: revoked.length, removed, passwordCleared: !!passwordSince }
    })
  } catch (error) {
    if (isUniqueViolation(error)) return fail('old_address_taken')
    throw error
  }
  if (done.kind === 'used') return linkFailure('used')
  if (done.kind === 'gone') return linkFailure('invalid')
  ctx.log.info('email change undone', { userId: link.user_id, revokedSessions: done.revoked, ...done.removed, passwordCleared: done.passwordCleared })
  const content = emailChangeUndoneNotice({
    siteName: ctx.config.email.siteName,
    ...(await mailReaderOf(ctx.db, link.user_id, input.actor)),
    when: now,
    ipAddress: input.actor.ipAddress,
    removed: done.removed,
    passwordCleared: done.passwordCleared,
    forgotUrl: new URL('/forgot-password', ctx.config.magic_links.domain).toString(),
  })
  getMailer(ctx)
    .send({ to: restore, content })
    .catch((error: Error) => ctx.log.error('undo notice not delivered', { userId: link.user_id, error: error.message }))
  return { ok: true }
}

