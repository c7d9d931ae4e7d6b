/**
 * Step two: the mailed link confirms the deletion. One transaction, serialised on the user row,
 * consumes the link (one winner among parallel confirmations), checks the last-owner rule again
 * (an owner may have left since the request), marks the account due for erasure at now + the undo
 * window, and ends every way in that exists: sessions and their refresh tokens, the OpenID
 * Provider's grants and tokens (revokeFamilies' account-wide end, as a ban does), and the API
 * tokens, revoked for good. From the commit on, every sign-in path reads the account as disabled
 * (deletion-state.ts). After the commit the address gets the undo link, valid until the purge.
 */
import { mailReaderOf } from '../mail/mail-locale'
import type { IamContext } from '../../context'
import { previewLinkPurpose } from '../mfa/link-checks'
import type { Actor } from '../security-events/repository'
import { resolveFamilyAnomaly } from '../anomalies/anomaly-store'
import { revokeAllTokensOf } from '../api-tokens/user-tokens'
import { accountDisabledNotice } from '../mail/templates'
import type { LinkParams } from '../mfa/link-token'
import { checkLink, consumeLink, type LinkFailure } from '../mfa/links'
import { DELETE_ACCOUNT_PURPOSE } from '../mfa/purposes'
import { soleOwnedOrganizations } from '../organizations/sole-owner'
import { recordUserAction } from '../security-events/repository'
import { revokeFamilies } from '../sessions/sessions-repo'
import type { LastOwner } from './request-deletion'
import { mailUndoLink } from './undo-link'

const isDeleteLink = (purpose: string) => purpose === DELETE_ACCOUNT_PURPOSE

export type LinkRefused = { ok: false; code: `link_${LinkFailure | 'previews'}` }

export type ConfirmDeletionResult = { ok: true; dueAt: Date; undoMailed: boolean } | LinkRefused | LastOwner

/** GET: what the link is for, counted as a preview, never consumed. */
export async function previewDeletionLink(ctx: IamContext, params: LinkParams): Promise<{ ok: true; reason: string } | LinkRefused> {
  const result = await previewLinkPurpose(ctx, params, isDeleteLink)
  return result.ok ? result : { ok: false, code: result.code as LinkRefused['code'] }
}

export async function confirmAccountDeletion(ctx: IamContext, input: { params: LinkParams; actor: Actor }): Promise<ConfirmDeletionResult> {
  const check = await checkLink(ctx, input.params, isDeleteLink)
  if (!check.ok) return { ok: false, code: `link_${check.code}` }
  const { link } = check
  const now = new Date(ctx.now())
  const dueAt = new Date(now.getTime() + ctx.config.accountDeletion.undoWindowMs)
  type Done = { kind: 'done'; email: string; families: string[] } | { kind: 'used' } | { kind: 'gone' } | LastOwner
  const done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
    const user = await trx.selectFrom('users').select(['email', 'deletion_due_at']).where('id', '=', link.user_id).forUpdate().executeTakeFirst()
    if (!user) return { kind: 'gone' }
    // checked before the link is spent: the owner hands the organization on and uses the same link
    const sole = await soleOwnedOrganizations(trx, link.user_id, now)
    if (sole.length > 0) return { ok: false, code: 'last_owner', organizations: sole }
    if (!(await consumeLink(trx, ctx, link)) || user.deletion_due_at) return { kind: 'used' }
    await trx.updateTable('users').set({ deletion_due_at: dueAt, updated_at: now }).where('id', '=', link.user_id).execute()
    const families = await revokeFamilies(trx, { userId: link.user_id }, 'account_deleted', now, ctx.sessionHooks)
    const tokens = await revokeAllTokensOf(trx, link.user_id)
    // a second confirmation link still in the mailbox has nothing left to confirm
    await trx
      .updateTable('magic_links')
      .set({ consumed_at: now })
      .where('user_id', '=', link.user_id)
      .where('purpose', '=', DELETE_ACCOUNT_PURPOSE)
      .where('consumed_at', 'is', null)
      .execute()
    await recordUserAction(trx, 'account_deletion_confirmed', {
      userId: link.user_id,
      actor: input.actor,
      details: { dueAt: dueAt.toISOString(), revokedSessions: families.length, revokedApiTokens: tokens.length },
      at: now,
    })
    return { kind: 'done', email: user.email, families }
  })
  if ('ok' in done) return done
  if (done.kind === 'used') return { ok: false, code: 'link_used' }
  if (done.kind === 'gone') return { ok: false, code: 'link_invalid' }
  await Promise.all(done.families.map((id) => resolveFamilyAnomaly(ctx.store, id)))
  ctx.log.info('account deletion confirmed', { userId: link.user_id, dueAt: dueAt.toISOString(), revokedSessions: done.families.length })
  // the deletion is committed: a mail that did not go out is logged (undo-link.ts), and the page says so
  const reader = await mailReaderOf(ctx.db, link.user_id, input.actor)
  const undoMailed = await mailUndoLink(ctx, {
    userId: link.user_id,
    email: done.email,
    dueAt,
    now,
    content: (undoLink, undoTtlMs) => accountDisabledNotice({ siteName: ctx.config.email.siteName, ...reader, eraseAt: dueAt, undoLink, undoTtlMs }),
  })
  return { ok: true, dueAt, undoMailed }
}
