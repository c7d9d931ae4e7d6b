import { ROUTES } from '../../../contract/routes'
import { regenerateRecoveryCodes } from '../../../features/second-factors/totp/totp-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/**
 * POST /auth/totp/recovery-codes (full authentication, no body): 200 `{ recoveryCodes }` (10, shown
 * once), every earlier recovery code removed; 401; 403 re-authentication required; 409 TOTP not enabled.
 */
export default defineRoute(ROUTES.totpRecoveryCodes, [], async ({ ctx, user, actor }) => {
  const result = await regenerateRecoveryCodes(ctx, { userId: user.userId, actor })
  if (result.ok) return okEnvelope({ recoveryCodes: result.recoveryCodes })
  return authFail(409, 'totp_not_enabled', 'Two-step sign-in is not on')
})
