import { ROUTES } from '../../../../../contract/routes'
import { adminRemoveFactor } from '../../../../../features/admin/users'
import { ADMIN_FAILURES } from '../../../../../http/admin-failures'
import { authFail } from '../../../../../http/auth'
import { okEnvelope } from '../../../../../http/respond'
import { answerFailure, body, defineRoute } from '../../../../../http/route'

const FAILURES = {
  ...ADMIN_FAILURES,
  unknown_factor: () => authFail(404, 'factor_not_found', 'The account has no such factor'),
} as const

/** POST /admin/users/:userId/factors/remove (platform administrators, a recent sign-in): the authenticator app, or one passkey. */
export default defineRoute(ROUTES.adminUserFactorRemove, [body({ markupCheck: false })], async ({ ctx, user, actor, params, body }) => {
  const result = await adminRemoveFactor(ctx, { userId: user.userId, actor, publicId: params.userId, ...body })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ removed: result.removed })
})
