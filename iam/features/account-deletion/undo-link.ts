/**
 * The undo link of a confirmed deletion (UNDO_DELETE_ACCOUNT, consumed by undo-deletion.ts): mailed
 * when the deletion is confirmed (confirm-deletion.ts) and again on request (restore-link.ts). It
 * lives exactly until the purge may erase the account, and each new one ends the live one before it
 * in the same transaction ('replace', mfa/flows.ts): an account has one live restore link, used once.
 */
import type { IamContext } from '../../context'
import type { MailContent } from '../mail/templates'
import { startSessionlessFlow } from '../mfa/flows'
import { UNDO_DELETE_ACCOUNT_PURPOSE } from '../mfa/purposes'

export interface UndoLinkMail {
  userId: number
  email: string
  dueAt: Date
  now: Date
  /** the mail around the link; `undoTtlMs` is how long the link lives from now */
  content: (undoLink: string, undoTtlMs: number) => MailContent
}

/** Issues the undo link and mails it; false when the mail did not go out (the link is removed then). */
export async function mailUndoLink(ctx: IamContext, input: UndoLinkMail): Promise<boolean> {
  const undoTtlMs = input.dueAt.getTime() - input.now.getTime()
  const result = await startSessionlessFlow(ctx, {
    purpose: UNDO_DELETE_ACCOUNT_PURPOSE,
    path: 'undoDeleteAccount',
    userId: input.userId,
    expiresInMs: undoTtlMs,
    onLive: 'replace',
    mail: (issued) => ({ to: input.email, links: [issued.url], content: input.content(issued.url, undoTtlMs) }),
  })
  if (!result.ok) ctx.log.error('account deletion: undo link not sent', { userId: input.userId, code: result.code })
  return result.ok
}
