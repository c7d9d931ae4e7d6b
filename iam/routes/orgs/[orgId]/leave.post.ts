import { ROUTES } from '../../../contract/routes'
import { leaveOrganization } from '../../../features/organizations/members'
import { authFail } from '../../../http/auth'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

const FAILURES = {
  not_found: ORG_FAILURES.not_found,
  last_owner: () => authFail(409, 'last_owner', 'The organization needs an owner who can act: make another member an owner first, or delete the organization'),
} as const

/** POST /orgs/:orgId/leave (full authentication): the user leaves (not as the last owner). */
export default defineRoute(ROUTES.orgLeave, [], async ({ ctx, user, actor, params }) => {
  const result = await leaveOrganization(ctx.db, { orgId: params.orgId, userId: user.userId, actor, now: ctx.now() })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ left: true as const })
})
