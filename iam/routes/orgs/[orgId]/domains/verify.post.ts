import { ssoRequiredChanged } from '../../../../features/enterprise/sso-required'
import { ROUTES } from '../../../../contract/routes'
import { createTxtLookup } from '../../../../features/enterprise/dns-txt'
import { verifyDomain } from '../../../../features/enterprise/domains'
import { DOMAIN_FAILURES } from '../../../../http/enterprise-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

/** POST /orgs/:orgId/domains/verify (full authentication; owners:manage) `{ domainId }`: reads the TXT records. */
export default defineRoute(ROUTES.orgDomainVerify, [], async ({ ctx, user, params, body }) => {
  const { dnsServers, dnsTimeoutMs } = ctx.config.enterprise
  const lookup = createTxtLookup({ dnsServers, timeoutMs: dnsTimeoutMs })
  const result = await verifyDomain(ctx.db, lookup, { orgId: params.orgId, userId: user.userId, domainId: body.domainId, now: ctx.now() })
  if (!result.ok) return answerFailure(DOMAIN_FAILURES, result)
  // a newly verified domain of an organization that requires SSO: enforced here at once
  await ssoRequiredChanged(ctx)
  return okEnvelope({ domain: result.domain })
})
