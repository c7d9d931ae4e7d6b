import { ROUTES } from '../../../contract/routes'
import { listInvitations } from '../../../features/organizations/invitations'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** GET /orgs/:orgId/invitations (full authentication; invitations:read). */
export default defineRoute(ROUTES.orgInvitations, [], async ({ ctx, user, params }) => {
  const result = await listInvitations(ctx, params.orgId, user.userId)
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ invitations: result.invitations })
})
