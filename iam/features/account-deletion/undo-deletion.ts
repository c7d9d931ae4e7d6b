/**
 * The undo link mailed when a deletion is confirmed: until the account's due moment it clears the
 * deletion, and the account signs in again. What the confirmation ended stays ended (sessions, API
 * tokens, app grants): the person signs in afresh and makes new tokens. From the due moment on the
 * link is refused in words (`undo_expired`), whether or not the purge has run yet.
 */
import { mailReaderOf } from '../mail/mail-locale'
import type { IamContext } from '../../context'
import { previewLinkPurpose } from '../mfa/link-checks'
import type { Actor } from '../security-events/repository'
import { getMailer } from '../mail/mailer'
import { accountRestoredNotice } from '../mail/templates'
import type { LinkParams } from '../mfa/link-token'
import { checkLink, consumeLink } from '../mfa/links'
import { UNDO_DELETE_ACCOUNT_PURPOSE } from '../mfa/purposes'
import { recordUserAction } from '../security-events/repository'
import type { LinkRefused } from './confirm-deletion'

const isUndoLink = (purpose: string) => purpose === UNDO_DELETE_ACCOUNT_PURPOSE

export type UndoDeletionResult = { ok: true } | LinkRefused | { ok: false; code: 'undo_expired' }

/** GET: the link checked and counted as a preview; an expired one says the window has passed. */
export async function previewUndoDeletionLink(ctx: IamContext, params: LinkParams): Promise<{ ok: true; reason: string } | UndoDeletionResult & { ok: false }> {
  const result = await previewLinkPurpose(ctx, params, isUndoLink)
  if (result.ok) return result
  return result.code === 'link_expired' ? { ok: false, code: 'undo_expired' } : { ok: false, code: result.code as LinkRefused['code'] }
}

export async function undoAccountDeletion(ctx: IamContext, input: { params: LinkParams; actor: Actor }): Promise<UndoDeletionResult> {
  const check = await checkLink(ctx, input.params, isUndoLink)
  if (!check.ok) return check.code === 'expired' ? { ok: false, code: 'undo_expired' } : { ok: false, code: `link_${check.code}` }
  const { link } = check
  const now = new Date(ctx.now())
  type Done = { kind: 'done'; email: string } | { kind: 'used' } | { kind: 'gone' } | { kind: 'late' }
  const done = await ctx.db.transaction().execute(async (trx): Promise<Done> => {
    const user = await trx.selectFrom('users').select(['email', 'deletion_due_at']).where('id', '=', link.user_id).forUpdate().executeTakeFirst()
    if (!user) return { kind: 'gone' }
    if (!user.deletion_due_at) return { kind: 'used' }
    // the row's moment decides, not only the link's: the purge may be about to take it
    if (user.deletion_due_at.getTime() <= now.getTime()) return { kind: 'late' }
    if (!(await consumeLink(trx, ctx, link))) return { kind: 'used' }
    await trx.updateTable('users').set({ deletion_due_at: null, updated_at: now }).where('id', '=', link.user_id).execute()
    await recordUserAction(trx, 'account_deletion_cancelled', { userId: link.user_id, actor: input.actor, details: {}, at: now })
    return { kind: 'done', email: user.email }
  })
  if (done.kind === 'gone') return { ok: false, code: 'undo_expired' }
  if (done.kind === 'late') return { ok: false, code: 'undo_expired' }
  if (done.kind === 'used') return { ok: false, code: 'link_used' }
  ctx.log.info('account deletion cancelled', { userId: link.user_id })
  const content = accountRestoredNotice({
    siteName: ctx.config.email.siteName,
    ...(await mailReaderOf(ctx.db, link.user_id, input.actor)),
    when: now,
    ipAddress: input.actor.ipAddress,
    loginUrl: new URL('/login', ctx.config.magic_links.domain).toString(),
  })
  getMailer(ctx)
    .send({ to: done.email, content })
    .catch((error: Error) => ctx.log.error('account restored notice not delivered', { userId: link.user_id, error: error.message }))
  return { ok: true }
}
