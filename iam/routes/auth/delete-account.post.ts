import { setResponseStatus } from 'h3'
import { ROUTES } from '../../contract/routes'
import { requestAccountDeletion } from '../../features/account-deletion/request-deletion'
import { lastOwner } from '../../http/account-deletion-outcomes'
import { authFail } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { answerFailure, defineRoute, limit } from '../../http/route'

/**
 * POST /auth/delete-account (full authentication, a recent sign-in, no body): 202 a single-use
 * confirmation link was mailed; 409 `last_owner` with the organizations to hand on first; 503 the
 * mail could not be sent; 429 beyond rate_limiters.auth.emails.
 */
export default defineRoute(ROUTES.deleteAccount, [limit('emails', ({ user }) => ({ userId: user!.userId }))], async ({ event, ctx, user, actor }) => {
  const result = await requestAccountDeletion(ctx, { userId: user.userId, actor })
  if (!result.ok) {
    return answerFailure(
      {
        last_owner: lastOwner,
        relogin_required: () => authFail(401, 'relogin_required', 'Re-login is required'),
        mail_failed: () => authFail(503, 'mail_failed', 'The confirmation mail could not be sent; try again later'),
      },
      result,
    )
  }
  setResponseStatus(event, 202)
  return okEnvelope({ sentTo: result.sentTo, expiresAt: result.expiresAt.toISOString() })
})
