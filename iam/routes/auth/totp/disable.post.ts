import { defineEventHandler } from 'h3'
import { SECOND_FACTOR_ROUTES } from '../../../contract/second-factor'
import { disableTotp } from '../../../features/second-factors/totp/totp-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { failCodesLocked, INVALID_FACTOR_CODE, readFactorRequest } from '../../../http/second-factor'

/**
 * POST /auth/totp/disable (full authentication, `{ code }`: TOTP or recovery code): 200, TOTP and
 * every recovery code removed; 400 validation or wrong code; 401; 403 re-authentication required; 409 TOTP not enabled; 429
 * (the codes limiter, or the account's code entry locked).
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, data, actor } = await readFactorRequest(event, SECOND_FACTOR_ROUTES.totpDisable, { recentSignIn: true })
  const result = await disableTotp(ctx, { userId: user.userId, code: data.code, actor })
  if (result.ok) return okEnvelope({ enabled: false as const })
  if (result.code === 'not_enabled') return authFail(409, 'Two-step sign-in is not on')
  if (result.code === 'locked') return failCodesLocked(result)
  return authFail(400, INVALID_FACTOR_CODE, { fields: { code: INVALID_FACTOR_CODE } })
})
