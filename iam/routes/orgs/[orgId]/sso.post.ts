import { ssoRequiredChanged } from '../../../features/enterprise/sso-required'
import { ROUTES } from '../../../contract/routes'
import { setConnection } from '../../../features/enterprise/saml-connections'
import { CONNECTION_FAILURES } from '../../../http/enterprise-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, body, defineRoute } from '../../../http/route'

/** POST /orgs/:orgId/sso (full authentication; owners:manage): creates or replaces the SAML connection. */
export default defineRoute(
  ROUTES.orgSsoSet,
  // metadata XML and PEM are markup-like by nature and never rendered as HTML
  [body({ markupCheck: false })],
  async ({ ctx, user, params, body }) => {
    const result = await setConnection(ctx.db, { ...body, orgId: params.orgId, userId: user.userId, gatewayOrigin: ctx.config.enterprise.gatewayOrigin, now: ctx.now() })
    if (!result.ok) return answerFailure(CONNECTION_FAILURES, result)
    // enabled and requireSso decide who may still use a password: enforced here at once
    await ssoRequiredChanged(ctx)
    return okEnvelope({ connection: result.connection })
  },
)
