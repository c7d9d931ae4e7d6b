import { ROUTES } from '../../../../contract/routes'
import { adminBan } from '../../../../features/admin/users'
import { UNTIL_LIFTED } from '../../../../features/users/suspension'
import { ADMIN_FAILURES } from '../../../../http/admin-failures'
import { authFail } from '../../../../http/auth'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, body, defineRoute } from '../../../../http/route'

const FAILURES = {
  ...ADMIN_FAILURES,
  until_in_past: () => authFail(400, 'validation_failed', 'Validation failed', { fields: { until: 'Must be in the future' } }),
  self: () => authFail(409, 'own_account', 'You cannot ban your own account'),
} as const

/**
 * POST /admin/users/:userId/ban `{ reason, until? | durationMs? }` (platform administrators, a
 * recent sign-in): the CLI's ban with the administrator's reason, recorded with their id. Neither
 * an end nor a duration: until lifted.
 */
export default defineRoute(ROUTES.adminUserBan, [body({ markupCheck: false })], async ({ ctx, user, actor, params, body }) => {
  if (body.until !== undefined && body.durationMs !== undefined) {
    const error = 'Give an end date or a duration, not both'
    return authFail(400, 'validation_failed', error, { fields: { until: error } })
  }
  const until = body.until ? new Date(body.until) : body.durationMs ? new Date(ctx.now() + body.durationMs) : UNTIL_LIFTED
  const result = await adminBan(ctx, { userId: user.userId, actor, publicId: params.userId, until, reason: body.reason })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ until: result.until, reason: result.reason, sessionsEnded: result.sessionsEnded, tokensSuspended: result.tokensSuspended })
})
