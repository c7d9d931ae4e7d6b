/**
 * The way back for an owner who comes to the sign-in page while their account waits for erasure
 * (docs/accounts.md "Deleting the account"), without the mail of the confirmation.
 *
 * Two steps, so that a mail goes out only when the person asks for it and only to someone who
 * proved the password:
 * 1. The login with the RIGHT password answers that the account is scheduled for deletion and
 *    carries a restore proof (`issueRestoreProof`, users/login-service.ts). A wrong password and an
 *    unknown address answer as they always did, so the state is told to nobody else.
 * 2. POST /auth/delete-account/restore-link trades the proof for a mail with a new undo link
 *    (`sendRestoreLink`); the link is the confirmation's own kind (undo-link.ts), and the new one
 *    ends the one mailed before, so the account keeps one live restore link, used once.
 *
 * A proof is 32 random bytes (only its SHA-256 is a store key), bound to the account and to the
 * device (canary) that signed in, lives RESTORE_PROOF_TTL_MS, and is spent once: `setIfAbsent`
 * on its spent marker has one winner among parallel trades. It restores nothing by itself: the
 * mailbox still has to open the link. Mailing the link at once on the right password would have
 * needed no proof, but would mail on every sign-in attempt the person did not mean as a request.
 *
 * "Forgot password" for such an account mails the same link (`mailRestoreLink`), off its request
 * path (account-actions/password-reset.ts), instead of a reset link the account could not use.
 */
import { chooseLocale, type Locale } from '../../contract/locales'
import { randomBytes } from 'node:crypto'
import type { IamContext } from '../../context'
import { hashKeyPart, storeKey } from '../../lib/storage'
import type { ActionLimited } from '../mfa/action-failures'
import { admitMailTo } from '../mail/address-cap'
import { restoreLinkMail } from '../mail/templates'
import { maskEmail } from '../mfa/flows'
import { useLimiter } from '../rate-limits/registry'
import { recordSecurityEvent } from '../security-events/repository'
import { findUserById } from '../users/users-repo'
import { isDeletionDue } from './deletion-state'
import { mailUndoLink } from './undo-link'

/** Long enough to read the sign-in page's sentence and press its button; a sign-in makes a new one. */
export const RESTORE_PROOF_TTL_MS = 10 * 60_000

interface ProofEntry {
  userId: number
  visitorRowId: number
}

const proofKey = (proof: string) => storeKey('account-restore:proof', hashKeyPart(proof))
const spentKey = (proof: string) => storeKey('account-restore:spent', hashKeyPart(proof))

export interface RestoreProof {
  proof: string
  expiresAt: Date
}

/** Step 1, after the right password of an account scheduled for deletion. */
export async function issueRestoreProof(ctx: Pick<IamContext, 'store' | 'now'>, input: ProofEntry): Promise<RestoreProof> {
  const proof = randomBytes(32).toString('base64url')
  await ctx.store.set(proofKey(proof), { userId: input.userId, visitorRowId: input.visitorRowId } satisfies ProofEntry, RESTORE_PROOF_TTL_MS)
  return { proof, expiresAt: new Date(ctx.now() + RESTORE_PROOF_TTL_MS) }
}

export type RestoreLinkResult =
  | { ok: true; sentTo: string; dueAt: Date }
  /** unknown, expired, spent, or issued to another device */
  | { ok: false; code: 'invalid_proof' }
  /** restored meanwhile: the password signs in */
  | { ok: false; code: 'not_pending' }
  /** the due moment has passed (or the purge ran): nothing restores it */
  | { ok: false; code: 'undo_expired' }
  | { ok: false; code: 'mail_failed' }
  | ActionLimited

/**
 * Step 2: the proof of `visitorRowId`'s sign-in for the restore link. The proof is spent before the
 * account's mail limiter (rate_limiters.emails) is asked, so only a proof's one winner counts
 * toward the account's mails; a refused one is gone too, and the wait (a block outlasts a proof)
 * ends with a new sign-in anyway. The address's cap (rate_limiters.mailbox) holds the mail back
 * without a refusal.
 */
export async function sendRestoreLink(ctx: IamContext, input: { proof: string; visitorRowId: number; ipAddress: string; requestLocale?: Locale; requestTimeZone?: string | null | undefined }): Promise<RestoreLinkResult> {
  const entry = await ctx.store.get<ProofEntry>(proofKey(input.proof))
  if (!entry || entry.visitorRowId !== input.visitorRowId) return { ok: false, code: 'invalid_proof' }
  if (!(await ctx.store.setIfAbsent(spentKey(input.proof), true, RESTORE_PROOF_TTL_MS))) return { ok: false, code: 'invalid_proof' }
  await ctx.store.delete(proofKey(input.proof))
  const decision = await useLimiter(ctx, 'emails').consume({ userId: entry.userId })
  if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
  const user = await findUserById(ctx.db, entry.userId)
  if (!user || isDeletionDue(user, ctx.now())) return { ok: false, code: 'undo_expired' }
  if (!user.deletion_due_at) return { ok: false, code: 'not_pending' }
  const sent = await mailRestoreLink(ctx, { user: { ...user, deletion_due_at: user.deletion_due_at }, asked: 'sign_in', visitorRowId: input.visitorRowId, ipAddress: input.ipAddress, requestLocale: input.requestLocale, requestTimeZone: input.requestTimeZone })
  if (sent === 'failed') return { ok: false, code: 'mail_failed' }
  return { ok: true, sentTo: maskEmail(user.email), dueAt: user.deletion_due_at }
}

/**
 * Mails a new undo link to the account's address (ending the live one), unless the address's cap
 * holds it back; recorded as `account_restore_link_sent` with what asked for it.
 */
export async function mailRestoreLink(
  ctx: IamContext,
  input: {
    user: { id: number; email: string; deletion_due_at: Date; locale: string | null; time_zone?: string | null }
    asked: 'sign_in' | 'forgot_password' | 'email_sign_in'
    visitorRowId: number | null
    ipAddress: string
    requestLocale?: Locale | undefined
    /** the signed-out page's time zone (X-Time-Zone), when the account has none stored */
    requestTimeZone?: string | null | undefined
  },
): Promise<'sent' | 'capped' | 'failed'> {
  const { user } = input
  if (!(await admitMailTo(ctx, { email: user.email, userId: user.id, kind: 'account_restore' }))) return 'capped'
  const now = new Date(ctx.now())
  const dueAt = user.deletion_due_at
  const mailed = await mailUndoLink(ctx, {
    userId: user.id,
    email: user.email,
    dueAt,
    now,
    content: (undoLink, undoTtlMs) =>
      restoreLinkMail({ siteName: ctx.config.email.siteName, locale: chooseLocale(user.locale, input.requestLocale), timeZone: user.time_zone ?? input.requestTimeZone, asked: input.asked, eraseAt: dueAt, undoLink, undoTtlMs }),
  })
  if (!mailed) return 'failed'
  await recordSecurityEvent(ctx.db, {
    type: 'account_restore_link_sent',
    userId: user.id,
    visitorRowId: input.visitorRowId,
    ipAddress: input.ipAddress,
    details: { asked: input.asked },
    at: now,
  })
  return 'sent'
}
