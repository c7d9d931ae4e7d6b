import { ROUTES } from '../../../../contract/routes'
import { adminUnban } from '../../../../features/admin/users'
import { ADMIN_FAILURES } from '../../../../http/admin-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

/** POST /admin/users/:userId/unban (platform administrators, a recent sign-in): the CLI's unban, recorded with the administrator's id. */
export default defineRoute(ROUTES.adminUserUnban, [], async ({ ctx, user, actor, params }) => {
  const result = await adminUnban(ctx, { userId: user.userId, actor, publicId: params.userId })
  if (!result.ok) return answerFailure(ADMIN_FAILURES, result)
  return okEnvelope({ wasBanned: result.wasBanned })
})
