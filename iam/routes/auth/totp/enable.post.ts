import { defineEventHandler } from 'h3'
import { SECOND_FACTOR_ROUTES } from '../../../contract/second-factor'
import { enableTotp } from '../../../features/second-factors/totp/totp-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { INVALID_FACTOR_CODE, readFactorRequest } from '../../../http/second-factor'

/**
 * POST /auth/totp/enable (full authentication, `{ code }`): 200 `{ recoveryCodes }` (10, shown
 * once); 400 validation or wrong code; 401; 403 address never confirmed or
 * re-authentication required; 409 no pending setup.
 */
export default defineEventHandler(async (event) => {
  const { ctx, user, data, actor } = await readFactorRequest(event, SECOND_FACTOR_ROUTES.totpEnable, { verifiedEmail: true, recentSignIn: true })
  const result = await enableTotp(ctx, { userId: user.userId, code: data.code, actor })
  if (result.ok) return okEnvelope({ recoveryCodes: result.recoveryCodes })
  if (result.code === 'no_pending') return authFail(409, 'Start the setup first')
  return authFail(400, INVALID_FACTOR_CODE, { fields: { code: INVALID_FACTOR_CODE } })
})
