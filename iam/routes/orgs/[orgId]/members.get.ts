import { ROUTES } from '../../../contract/routes'
import { listMembers } from '../../../features/organizations/members'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** GET /orgs/:orgId/members (full authentication; members:read). */
export default defineRoute(ROUTES.orgMembers, [], async ({ ctx, user, params }) => {
  const result = await listMembers(ctx.db, params.orgId, user.userId)
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ members: result.members })
})
