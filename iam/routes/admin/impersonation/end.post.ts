import { ROUTES } from '../../../contract/routes'
import { endImpersonationsBy } from '../../../features/admin/impersonation'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/**
 * POST /admin/impersonation/end (platform administrators, a recent sign-in): ends every session the
 * administrator opened on someone's behalf, each end recorded on both accounts. Logging out of the
 * impersonated session (POST /auth/logout) ends that one alone.
 */
export default defineRoute(ROUTES.adminImpersonationEnd, [], async ({ ctx, user, actor }) => {
  const ended = await endImpersonationsBy(ctx, { userId: user.userId, actor })
  return okEnvelope({ ended })
})
