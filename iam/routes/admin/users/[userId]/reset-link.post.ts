import { ROUTES } from '../../../../contract/routes'
import { adminSendResetLink } from '../../../../features/admin/users'
import { ADMIN_FAILURES } from '../../../../http/admin-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

/** POST /admin/users/:userId/reset-link (platform administrators, a recent sign-in): mails the forgot-password mail now. */
export default defineRoute(ROUTES.adminUserResetLink, [], async ({ ctx, user, actor, params }) => {
  const result = await adminSendResetLink(ctx, { userId: user.userId, actor, publicId: params.userId })
  if (!result.ok) return answerFailure(ADMIN_FAILURES, result)
  return okEnvelope({ sent: result.sent })
})
