/**
 * Step one of self-service deletion (POST /auth/delete-account, after a recent sign-in proof):
 * refused while the user is the last owner of an organization; otherwise a single-use confirmation
 * link goes to the account's address. Nothing changes until that link is used
 * (confirm-deletion.ts): a session left open on another device cannot delete the account without
 * the mailbox as well.
 */
import { chooseLocale } from '../../contract/locales'
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { deleteAccountMail } from '../mail/templates'
import { findMailRecipient, maskEmail, startSessionlessFlow } from '../mfa/flows'
import { DELETE_ACCOUNT_PURPOSE } from '../mfa/purposes'
import { soleOwnedOrganizations, type SoleOwnedOrganization } from '../organizations/sole-owner'
import { recordUserAction } from '../security-events/repository'

export type LastOwner = { ok: false; code: 'last_owner'; organizations: SoleOwnedOrganization[] }

export type RequestDeletionResult =
  | { ok: true; sentTo: string; expiresAt: Date }
  | LastOwner
  /** the account is gone (purged, or its session outlived it) */
  | { ok: false; code: 'relogin_required' }
  | { ok: false; code: 'mail_failed' }

export async function requestAccountDeletion(ctx: IamContext, input: { userId: number; actor: Actor }): Promise<RequestDeletionResult> {
  const sole = await soleOwnedOrganizations(ctx.db, input.userId, new Date(ctx.now()))
  if (sole.length > 0) return { ok: false, code: 'last_owner', organizations: sole }
  const user = await findMailRecipient(ctx, input.userId)
  if (!user) return { ok: false, code: 'relogin_required' }
  const linkTtlMs = ctx.config.magic_links.expiresInMs
  const result = await startSessionlessFlow(ctx, {
    purpose: DELETE_ACCOUNT_PURPOSE,
    path: 'deleteAccount',
    userId: input.userId,
    // asking again replaces the earlier link: only the newest mail confirms
    onLive: 'replace',
    mail: (issued) => ({
      to: user.email,
      links: [issued.url],
      content: deleteAccountMail({ siteName: ctx.config.email.siteName, locale: chooseLocale(user.locale, input.actor.locale), link: issued.url, linkTtlMs, undoWindowMs: ctx.config.accountDeletion.undoWindowMs }),
    }),
  })
  if (!result.ok) return { ok: false, code: result.code === 'session_gone' ? 'relogin_required' : 'mail_failed' }
  if (!result.sent) throw new Error('a replacing flow always sends')
  await recordUserAction(ctx.db, 'account_deletion_requested', { userId: input.userId, actor: input.actor, details: {}, at: new Date(ctx.now()) })
  return { ok: true, sentTo: maskEmail(user.email), expiresAt: result.issued.expiresAt }
}
