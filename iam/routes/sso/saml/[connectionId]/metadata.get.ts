import { setResponseHeader } from 'h3'
import { ROUTES } from '../../../../contract/routes'
import { loadEnabledConnection } from '../../../../features/enterprise/saml-connections'
import { spMetadata } from '../../../../features/enterprise/saml-sp'
import { NO_CONNECTION } from '../../../../http/enterprise-failures'
import { defineRoute } from '../../../../http/route'

/** GET /sso/saml/:connectionId/metadata (purpose `sso`): the service provider metadata XML. */
export default defineRoute(ROUTES.samlMetadata, [], async ({ event, ctx, params }) => {
  const connection = await loadEnabledConnection(ctx.db, params.connectionId)
  if (!connection) return NO_CONNECTION()
  setResponseHeader(event, 'content-type', 'application/samlmetadata+xml; charset=utf-8')
  return spMetadata(ctx, connection)
})
