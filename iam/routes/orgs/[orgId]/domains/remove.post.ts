import { ssoRequiredChanged } from '../../../../features/enterprise/sso-required'
import { ROUTES } from '../../../../contract/routes'
import { removeDomain } from '../../../../features/enterprise/domains'
import { DOMAIN_FAILURES } from '../../../../http/enterprise-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

/** POST /orgs/:orgId/domains/remove (full authentication; owners:manage) `{ domainId }`. */
export default defineRoute(ROUTES.orgDomainRemove, [], async ({ ctx, user, params, body }) => {
  const result = await removeDomain(ctx.db, { orgId: params.orgId, userId: user.userId, domainId: body.domainId })
  if (!result.ok) return answerFailure(DOMAIN_FAILURES, result)
  // the domain's addresses may use a password again here at once
  await ssoRequiredChanged(ctx)
  return okEnvelope({ removed: true as const })
})
