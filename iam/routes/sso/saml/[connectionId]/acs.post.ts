import { ROUTES } from '../../../../contract/routes'
import { safeReturnTo } from '../../../../features/enterprise/return-to'
import { loadEnabledConnection } from '../../../../features/enterprise/saml-connections'
import { samlLogin } from '../../../../features/enterprise/saml-login'
import { verifySamlResponse } from '../../../../features/enterprise/saml-response'
import { sendTokens } from '../../../../http/auth'
import { NO_CONNECTION, SAML_FAILURES } from '../../../../http/enterprise-failures'
import { body, defineRoute, limit, signInGate } from '../../../../http/route'
import { signInDevice } from '../../../../http/sign-in'

/**
 * POST /sso/saml/:connectionId/acs (purpose `sso`) `{ SAMLResponse, RelayState? }` as the gateway
 * received them by form post: 201 tokens and `returnTo`; 200 `{ secondFactor, returnTo }` for an
 * account with one (where to go once the step is answered: the relay state is spent by then).
 */
export default defineRoute(
  ROUTES.samlAcs,
  [
    signInGate,
    // a base64 XML document: markup by nature, verified by signature, never rendered
    body({ markupCheck: false }),
    limit('oauth', ({ ip }) => ({ ip })),
  ],
  async (req) => {
    const { event, ctx, visitor, params, body } = req
    const connection = await loadEnabledConnection(ctx.db, params.connectionId)
    if (!connection) return NO_CONNECTION()
    const verified = await verifySamlResponse(ctx, connection, body.SAMLResponse)
    if (!verified.ok) return SAML_FAILURES[verified.code]()
    const result = await samlLogin(ctx, { connection, assertion: verified.assertion, ...signInDevice(event, visitor!) })
    if (!result.ok) return SAML_FAILURES[result.code]()
    const returnTo = safeReturnTo(body.RelayState)
    if ('secondFactor' in result) return { ok: true as const, date: new Date().toISOString(), secondFactor: result.secondFactor, returnTo }
    return { ...sendTokens(event, ctx, result.pair, 201), returnTo }
  },
)
