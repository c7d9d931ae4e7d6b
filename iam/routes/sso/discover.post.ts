import { ROUTES } from '../../contract/routes'
import { emailDomain } from '../../features/enterprise/domain-name'
import { connectionForDomain } from '../../features/enterprise/domains'
import { okEnvelope } from '../../http/respond'
import { defineRoute, limit } from '../../http/route'

/**
 * POST /sso/discover `{ email }`: whether the address's domain routes to a SAML connection. The
 * answer is read from the domain alone (verified domains and enabled connections), never from
 * accounts, so it tells nothing about who has one.
 */
export default defineRoute(ROUTES.ssoDiscover, [limit('check', ({ ip }) => ({ ip }))], async ({ ctx, body }) => {
  const domain = emailDomain(body.email.trim().toLowerCase())
  const route = domain ? await connectionForDomain(ctx.db, domain) : null
  return okEnvelope({ sso: route !== null, connectionId: route?.connectionId ?? null, required: route?.requireSso ?? false })
})
