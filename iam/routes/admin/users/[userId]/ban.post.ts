import { ROUTES } from '../../../../contract/routes'
import { adminBan } from '../../../../features/admin/users'
import { ADMIN_FAILURES } from '../../../../http/admin-failures'
import { authFail } from '../../../../http/auth'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, body, defineRoute } from '../../../../http/route'

/** Far enough to mean "until lifted" (the CLI's users:ban without --until means the same). */
const INDEFINITELY = new Date('9999-12-31T00:00:00.000Z')

const FAILURES = {
  ...ADMIN_FAILURES,
  until_in_past: () => authFail(400, 'validation_failed', 'Validation failed', { fields: { until: 'Must be in the future' } }),
  self: () => authFail(409, 'own_account', 'You cannot ban your own account'),
} as const

/** POST /admin/users/:userId/ban (platform administrators, a recent sign-in): the CLI's ban, recorded with the administrator's id. */
export default defineRoute(ROUTES.adminUserBan, [body({ markupCheck: false })], async ({ ctx, user, actor, params, body }) => {
  const until = body.until ? new Date(body.until) : INDEFINITELY
  const result = await adminBan(ctx, { userId: user.userId, actor, publicId: params.userId, until })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ until: result.until, sessionsEnded: result.sessionsEnded, tokensSuspended: result.tokensSuspended })
})
