import { ROUTES } from '../../../contract/routes'
import { readScimConnection } from '../../../features/enterprise/scim-tokens'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** GET /orgs/:orgId/scim (full authentication; owners): the SCIM connection, never its token. */
export default defineRoute(ROUTES.scimConnection, [], async ({ ctx, user, params }) => {
  const result = await readScimConnection(ctx.db, { orgId: params.orgId, userId: user.userId })
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ connection: result.connection })
})
