import { ROUTES } from '../../../contract/routes'
import { findPendingEmailChange } from '../../../features/account-actions/pending-email-change'
import { maskEmail } from '../../../features/mfa/flows'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /update/email/pending (full authentication): 200 `{ pending: { sentTo, expiresAt } | null }`. */
export default defineRoute(ROUTES.pendingEmailChange, [], async ({ ctx, user }) => {
  const pending = await findPendingEmailChange(ctx.db, user.userId, new Date(ctx.now()))
  return okEnvelope({ pending: pending ? { sentTo: maskEmail(pending.email), expiresAt: pending.expiresAt.toISOString() } : null })
})
