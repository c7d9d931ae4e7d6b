import { ROUTES } from '../../contract/routes'
import { resendVerification } from '../../features/account-actions/verify-email'
import { failAction } from '../../http/account-action-outcomes'
import { okEnvelope } from '../../http/respond'
import { counted, defineRoute } from '../../http/route'

/**
 * POST /auth/resend-verification (full authentication, no body): mails a new verification link to
 * the account's address. 200 sent; 400 already verified; 401; 429 beyond
 * rate_limiters.resendVerification (3 per hour per user by default); 503 mail not delivered.
 */
export default defineRoute(ROUTES.resendVerification, [counted('resendVerification'), counted('mailbox')], async ({ ctx, user, actor }) => {
  const result = await resendVerification(ctx, user.userId, user.visitorRowId, actor.locale)
  if (result.ok) return okEnvelope({ message: 'A verification link has been sent to your email address.' })
  return failAction(result)
})
