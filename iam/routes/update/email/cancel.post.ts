import { ROUTES } from '../../../contract/routes'
import { cancelPendingEmailChange } from '../../../features/account-actions/pending-email-change'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** POST /update/email/cancel (full authentication, no body): 200 `{ cancelled }`; the waiting link stops working. */
export default defineRoute(ROUTES.cancelEmailChange, [], async ({ ctx, user }) => {
  const cancelled = await cancelPendingEmailChange(ctx.db, user.userId, new Date(ctx.now()))
  if (cancelled) ctx.log.info('email change cancelled', { userId: user.userId })
  return okEnvelope({ cancelled })
})
