import { ROUTES } from '../../../contract/routes'
import { passkeySignupOptions } from '../../../features/users/passkey-signup'
import { ssoRequiredFor } from '../../../features/enterprise/sso-required'
import { LINK_ERRORS } from '../../../features/mfa/links'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { body, defineRoute, limit, signInGate } from '../../../http/route'
import { failCodesLocked } from '../../../http/second-factor'
import { failSsoRequired } from '../../../http/sso-required'

/**
 * POST /auth/passkey-signup/options `{ email, code }` (canary_id required): 200 `{ options,
 * ceremonyId }`, creation options bound to this device; 400 validation; 401 a wrong, expired or
 * used code (one body whether or not a code waits for the address); 403 banned, or `sso_required`;
 * 429 the login's per-IP budget, or the address's code entry locked after too many wrong codes.
 */
export default defineRoute(ROUTES.passkeySignupOptions, [signInGate, body({ markupCheck: false }), limit('loginIp', ({ ip }) => ({ ip }))], async ({ ctx, visitor, body }) => {
  // before the code budget is spent; the domain alone decides (http/sso-required.ts)
  const sso = await ssoRequiredFor(ctx.db, body.email)
  if (sso) return failSsoRequired(ctx, sso)
  const result = await passkeySignupOptions(ctx, { email: body.email, code: body.code, visitorRowId: visitor!.id })
  if (result.ok) return okEnvelope({ options: result.options, ceremonyId: result.ceremonyId })
  if (result.code === 'locked') return failCodesLocked(result)
  return authFail(401, 'code_invalid', LINK_ERRORS.bad_code)
})
