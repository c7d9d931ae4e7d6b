import { ROUTES } from '../../../../contract/routes'
import { adminVerifyEmail } from '../../../../features/admin/users'
import { ADMIN_FAILURES } from '../../../../http/admin-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

/** POST /admin/users/:userId/verify-email (platform administrators, a recent sign-in): the address counts as confirmed. */
export default defineRoute(ROUTES.adminUserVerifyEmail, [], async ({ ctx, user, actor, params }) => {
  const result = await adminVerifyEmail(ctx, { userId: user.userId, actor, publicId: params.userId })
  if (!result.ok) return answerFailure(ADMIN_FAILURES, result)
  return okEnvelope({ wasVerified: result.wasVerified })
})
