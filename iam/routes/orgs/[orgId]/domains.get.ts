import { ROUTES } from '../../../contract/routes'
import { listDomains } from '../../../features/enterprise/domains'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** GET /orgs/:orgId/domains (full authentication; members:manage): the claimed domains and their TXT records. */
export default defineRoute(ROUTES.orgDomains, [], async ({ ctx, user, params }) => {
  const result = await listDomains(ctx.db, params.orgId, user.userId)
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  return okEnvelope({ domains: result.domains })
})
