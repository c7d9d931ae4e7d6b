import { ROUTES } from '../../../contract/routes'
import { resendEmailChange } from '../../../features/account-actions/email-change'
import { failAction } from '../../../http/account-action-outcomes'
import { okEnvelope } from '../../../http/respond'
import { counted, defineRoute } from '../../../http/route'

/**
 * POST /update/email/resend (full authentication, no body): the waiting email change's confirmation
 * link again, to the new address (a mail lost or expired in a spam folder is no dead end). 200
 * `{ sentTo }` masked; 400 none waiting; 429 beyond rate_limiters.resendVerification; 500 mail not sent.
 */
export default defineRoute(ROUTES.resendEmailChange, [counted('resendVerification'), counted('mailbox')], async ({ ctx, user, actor }) => {
  const result = await resendEmailChange(ctx, user.userId, actor.locale)
  if (!result.ok) return failAction(result)
  return okEnvelope({ sentTo: result.sentTo })
})
