import { ROUTES } from '../../../../contract/routes'
import { safeReturnTo } from '../../../../features/enterprise/return-to'
import { loadEnabledConnection } from '../../../../features/enterprise/saml-connections'
import { authorizeUrl } from '../../../../features/enterprise/saml-sp'
import { NO_CONNECTION } from '../../../../http/enterprise-failures'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute, limit } from '../../../../http/route'

/** GET /sso/saml/:connectionId/start?returnTo= (purpose `sso`): the identity provider URL with a new AuthnRequest. */
export default defineRoute(ROUTES.samlStart, [limit('oauth', ({ ip }) => ({ ip }))], async ({ ctx, params, query }) => {
  const connection = await loadEnabledConnection(ctx.db, params.connectionId)
  if (!connection) return NO_CONNECTION()
  return okEnvelope({ redirectUrl: await authorizeUrl(ctx, connection, safeReturnTo(query.returnTo)) })
})
