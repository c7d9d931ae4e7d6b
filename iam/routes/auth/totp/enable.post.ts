import { ROUTES } from '../../../contract/routes'
import { enableTotp } from '../../../features/second-factors/totp/totp-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { body, limit, defineRoute } from '../../../http/route'
import { INVALID_FACTOR_CODE } from '../../../http/second-factor'

/**
 * POST /auth/totp/enable (full authentication, `{ code }`): 200 `{ recoveryCodes }` (10, shown
 * once); 400 validation or wrong code; 401; 403 address never confirmed or
 * re-authentication required; 409 no pending setup.
 */
export default defineRoute(ROUTES.totpEnable, [body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' }))], async ({ ctx, user, body, actor }) => {
  const result = await enableTotp(ctx, { userId: user.userId, code: body.code, actor })
  if (result.ok) return okEnvelope({ recoveryCodes: result.recoveryCodes })
  if (result.code === 'no_pending') return authFail(409, 'totp_setup_not_started', 'Start the setup first')
  return authFail(400, 'code_invalid', INVALID_FACTOR_CODE, { fields: { code: INVALID_FACTOR_CODE } })
})
