import { defineEventHandler } from 'h3'
import { useIam } from '../../../context'
import { regenerateRecoveryCodes } from '../../../features/second-factors/totp/totp-service'
import { authFail, fullAuthentication } from '../../../http/auth'
import { actorOf } from '../../../http/link-submission'
import { requireRecentSignIn } from '../../../http/reauthenticate'
import { okEnvelope } from '../../../http/respond'

/**
 * POST /auth/totp/recovery-codes (full authentication, no body): 200 `{ recoveryCodes }` (10, shown
 * once), every earlier recovery code removed; 401; 403 re-authentication required; 409 TOTP not enabled.
 */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  requireRecentSignIn(event)
  const result = await regenerateRecoveryCodes(useIam(), { userId: user.userId, actor: actorOf(event, user.visitorRowId) })
  if (result.ok) return okEnvelope({ recoveryCodes: result.recoveryCodes })
  return authFail(409, 'Two-step sign-in is not on')
})
