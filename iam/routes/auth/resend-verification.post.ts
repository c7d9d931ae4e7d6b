import { defineEventHandler } from 'h3'
import { useIam } from '../../context'
import { resendVerification } from '../../features/account-actions/verify-email'
import { fullAuthentication } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { failAction } from '../../http/account-action-outcomes'

/**
 * POST /auth/resend-verification (full authentication, no body): mails a new verification link to
 * the account's address. 200 sent; 400 already verified; 401; 429 beyond
 * rate_limiters.resendVerification (3 per hour per user by default); 503 mail not delivered.
 */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  const result = await resendVerification(useIam(), user.userId, user.visitorRowId)
  if (result.ok) return okEnvelope({ message: 'A verification link has been sent to your email address.' })
  return failAction(result)
})
