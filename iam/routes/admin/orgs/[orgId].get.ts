import { ROUTES } from '../../../contract/routes'
import { orgDetail } from '../../../features/admin/orgs'
import { authFail } from '../../../http/auth'
import { NO_SUCH_ORGANIZATION } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /admin/orgs/:orgId (platform administrators, a recent sign-in): one organization, its members, roles and invitations. */
export default defineRoute(ROUTES.adminOrg, [], async ({ ctx, params }) => {
  const detail = await orgDetail(ctx, params.orgId)
  if (!detail) return authFail(404, 'org_not_found', NO_SUCH_ORGANIZATION)
  return okEnvelope(detail)
})
