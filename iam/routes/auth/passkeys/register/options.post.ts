import { defineEventHandler } from 'h3'
import { useIam } from '../../../../context'
import { startRegistration } from '../../../../features/second-factors/passkeys/registration-service'
import { fullAuthentication } from '../../../../http/auth'
import { requireRecentSignIn, requireVerifiedEmail } from '../../../../http/reauthenticate'
import { okEnvelope } from '../../../../http/respond'

/** POST /auth/passkeys/register/options (full authentication): 200 `{ options }` (creation options); 401; 403 address never
 * confirmed (`verifyEmail`) or re-authentication required (`reauthenticate`). */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  requireVerifiedEmail(event)
  requireRecentSignIn(event)
  return okEnvelope({ options: await startRegistration(useIam(), { userId: user.userId, visitorRowId: user.visitorRowId }) })
})
