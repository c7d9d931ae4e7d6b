/**
 * The per-address cap of link mails (rate_limiters.mailbox): password reset and sign-in help
 * mails, email verification links (sign-up, email change, resend) and the restore link of an
 * account scheduled for deletion (account-deletion/restore-link.ts), and the mail that tells an
 * address no account uses it (mail/no-account.ts), counted per recipient
 * address from every client together, so that many IPs cannot flood one mailbox.
 *
 * It never refuses a request: over the cap the mail is just not sent and the route answers as it
 * would have (POST /auth/forgot-password decides after its response, so its answer and timing
 * are the same either way). The price: whoever spends an address's budget delays its mails until
 * the window ends, which is why the default leaves room for a real user's sign-up and a reset.
 */
import type { IamContext } from '../../context'
import { useLimiter } from '../rate-limits/registry'

export type CappedMail = 'password_reset' | 'sign_in_help' | 'email_verification' | 'account_restore' | 'email_sign_in' | 'passkey_signup' | 'no_account'

/** Spends one of the address's mails; false when its budget is used up (nothing is sent then). */
export async function admitMailTo(ctx: Pick<IamContext, 'store' | 'config' | 'log'>, to: { email: string; userId: number | null; kind: CappedMail }): Promise<boolean> {
  const decision = await useLimiter(ctx, 'mailbox').consume({ email: to.email })
  // the user id (none for an address without an account), never the address, in the log
  if (!decision.ok) ctx.log.warn('mail not sent: the address reached rate_limiters.mailbox', { userId: to.userId, kind: to.kind })
  return decision.ok
}
