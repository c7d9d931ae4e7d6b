import { ROUTES } from '../../../../contract/routes'
import { startImpersonation } from '../../../../features/admin/impersonation'
import { ADMIN_FAILURES } from '../../../../http/admin-failures'
import { authFail, requireSessionDevice, sendTokens } from '../../../../http/auth'
import { answerFailure, defineRoute } from '../../../../http/route'

const FAILURES = {
  ...ADMIN_FAILURES,
  self: () => authFail(403, 'own_account', 'You cannot impersonate yourself'),
  target_is_admin: () => authFail(403, 'target_is_admin', 'Administrators cannot be impersonated'),
} as const

/**
 * POST /admin/users/:userId/impersonate (platform administrators, a recent sign-in): a session of
 * the account on the administrator's device, marked `act` and ending after
 * security.impersonationTtlMs (features/admin/impersonation.ts). The session cookie is set as a
 * sign-in sets it; the caller keeps the administrator's own session aside to come back to.
 */
export default defineRoute(ROUTES.adminUserImpersonate, [], async ({ event, ctx, user, actor, params }) => {
  const visitor = requireSessionDevice(event)
  const result = await startImpersonation(ctx, { userId: user.userId, actor, visitor }, params.userId)
  if (!result.ok) return answerFailure(FAILURES, result)
  return {
    ...sendTokens(event, ctx, result.pair, 200),
    impersonation: { userId: result.target.id, email: result.target.email, name: result.target.name, endsAt: result.endsAt.toISOString() },
  }
})
