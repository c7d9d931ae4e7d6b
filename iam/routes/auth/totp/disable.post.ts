import { ROUTES } from '../../../contract/routes'
import { disableTotp } from '../../../features/second-factors/totp/totp-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { body, limit, defineRoute } from '../../../http/route'
import { failCodesLocked, INVALID_FACTOR_CODE } from '../../../http/second-factor'

/**
 * POST /auth/totp/disable (full authentication, `{ code }`: TOTP or recovery code): 200, TOTP and
 * every recovery code removed; 400 validation or wrong code; 401; 403 re-authentication required;
 * 409 TOTP not enabled; 429 (the codes limiter, or the account's code entry locked).
 */
export default defineRoute(ROUTES.totpDisable, [body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' }))], async ({ ctx, user, body, actor }) => {
  const result = await disableTotp(ctx, { userId: user.userId, code: body.code, actor })
  if (result.ok) return okEnvelope({ enabled: false as const })
  if (result.code === 'not_enabled') return authFail(409, 'totp_not_enabled', 'Two-step sign-in is not on')
  if (result.code === 'locked') return failCodesLocked(result)
  return authFail(400, 'code_invalid', INVALID_FACTOR_CODE, { fields: { code: INVALID_FACTOR_CODE } })
})
