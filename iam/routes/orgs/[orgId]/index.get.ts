import { ROUTES } from '../../../contract/routes'
import { getOrganization } from '../../../features/organizations/organizations'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** GET /orgs/:orgId (full authentication): the organization, with the member's role and permissions. */
export default defineRoute(ROUTES.orgGet, [], async ({ ctx, user, params }) => {
  const result = await getOrganization(ctx.db, params.orgId, user.userId)
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ org: result.org })
})
