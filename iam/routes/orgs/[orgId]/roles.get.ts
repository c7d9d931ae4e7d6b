import { ROUTES } from '../../../contract/routes'
import { listRoles } from '../../../features/organizations/roles'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** GET /orgs/:orgId/roles (full authentication; roles:read): the custom roles. */
export default defineRoute(ROUTES.orgRoles, [], async ({ ctx, user, params }) => {
  const result = await listRoles(ctx.db, params.orgId, user.userId)
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ roles: result.roles })
})
