import { defineEventHandler } from 'h3'
import { useIam } from '../../../context'
import { setupTotp } from '../../../features/second-factors/totp/totp-service'
import { authFail, fullAuthentication } from '../../../http/auth'
import { requireRecentSignIn, requireVerifiedEmail } from '../../../http/reauthenticate'
import { okEnvelope } from '../../../http/respond'

/**
 * POST /auth/totp/setup (full authentication, no body): 200 `{ secret, otpauthUrl }`, pending until
 * confirmed (a new setup replaces a pending one); 401; 403 address never confirmed (`verifyEmail`)
 * or re-authentication required (`reauthenticate`); 409 TOTP already enabled.
 */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  requireVerifiedEmail(event)
  requireRecentSignIn(event)
  const result = await setupTotp(useIam(), user.userId)
  if (result.ok) return okEnvelope({ secret: result.secret, otpauthUrl: result.otpauthUrl })
  if (result.code === 'already_enabled') return authFail(409, 'Two-step sign-in is already on')
  return authFail(401, 'Re-login is required')
})
