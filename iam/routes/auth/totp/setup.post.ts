import { ROUTES } from '../../../contract/routes'
import { setupTotp } from '../../../features/second-factors/totp/totp-service'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/**
 * POST /auth/totp/setup (full authentication, no body): 200 `{ secret, otpauthUrl }`, pending until
 * confirmed (a new setup replaces a pending one); 401; 403 address never confirmed (`verifyEmail`)
 * or re-authentication required (`reauthenticate`); 409 TOTP already enabled.
 */
export default defineRoute(ROUTES.totpSetup, [], async ({ ctx, user }) => {
  const result = await setupTotp(ctx, user.userId)
  if (result.ok) return okEnvelope({ secret: result.secret, otpauthUrl: result.otpauthUrl })
  if (result.code === 'already_enabled') return authFail(409, 'totp_already_enabled', 'Two-step sign-in is already on')
  return authFail(401, 'relogin_required', 'Re-login is required')
})
