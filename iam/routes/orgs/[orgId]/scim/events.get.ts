import { ROUTES } from '../../../../contract/routes'
import { listScimEvents } from '../../../../features/enterprise/scim-events'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

/** GET /orgs/:orgId/scim/events (full authentication; owners): the provisioning log, newest first. */
export default defineRoute(ROUTES.scimEvents, [], async ({ ctx, user, params }) => {
  const result = await listScimEvents(ctx.db, { orgId: params.orgId, userId: user.userId, limit: 200 })
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ events: result.events })
})
