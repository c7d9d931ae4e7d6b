import { ROUTES } from '../../../contract/routes'
import { getConnection } from '../../../features/enterprise/saml-connections'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** GET /orgs/:orgId/sso (full authentication; members:manage): the SAML connection, or null. */
export default defineRoute(ROUTES.orgSso, [], async ({ ctx, user, params }) => {
  const result = await getConnection(ctx.db, { orgId: params.orgId, userId: user.userId, gatewayOrigin: ctx.config.enterprise.gatewayOrigin })
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ connection: result.connection })
})
