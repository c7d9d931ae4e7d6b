import { defineEventHandler } from 'h3'
import { useIam } from '../../context'
import { findSignInMethods } from '../../features/users/sign-in-methods'
import { authFail, fullAuthentication, RELOGIN_ERROR } from '../../http/auth'
import { okEnvelope } from '../../http/respond'

/** GET /auth/sign-in-methods (full authentication): 200 `{ password, totp, passkeys, providers }`; 401. */
export default defineEventHandler(async (event) => {
  const user = await fullAuthentication(event)
  const methods = await findSignInMethods(useIam().db, user.userId)
  // full authentication read the account a moment ago: gone since is a session that just ended
  if (!methods) return authFail(401, RELOGIN_ERROR)
  return okEnvelope(methods)
})
