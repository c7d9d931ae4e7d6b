import { setResponseStatus } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { addDomain } from '../../../features/enterprise/domains'
import { DOMAIN_FAILURES } from '../../../http/enterprise-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** POST /orgs/:orgId/domains (full authentication; owners:manage) `{ domain }`: 201 with the TXT record to publish. */
export default defineRoute(ROUTES.orgDomainAdd, [], async ({ event, ctx, user, params, body }) => {
  const result = await addDomain(ctx.db, { orgId: params.orgId, userId: user.userId, domain: body.domain, maxPerOrg: ctx.config.enterprise.maxDomainsPerOrg, now: ctx.now() })
  if (!result.ok) return answerFailure(DOMAIN_FAILURES, result)
  setResponseStatus(event, 201)
  return okEnvelope({ domain: result.domain })
})
