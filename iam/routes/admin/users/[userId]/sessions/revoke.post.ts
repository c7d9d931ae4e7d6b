import { ROUTES } from '../../../../../contract/routes'
import { adminRevokeSessions } from '../../../../../features/admin/users'
import { ADMIN_FAILURES } from '../../../../../http/admin-failures'
import { okEnvelope } from '../../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../../http/route'

/** POST /admin/users/:userId/sessions/revoke (platform administrators, a recent sign-in): every session of the account ends. */
export default defineRoute(ROUTES.adminUserSessionsRevoke, [], async ({ ctx, user, actor, params }) => {
  const result = await adminRevokeSessions(ctx, { userId: user.userId, actor, publicId: params.userId })
  if (!result.ok) return answerFailure(ADMIN_FAILURES, result)
  return okEnvelope({ revoked: result.revoked })
})
