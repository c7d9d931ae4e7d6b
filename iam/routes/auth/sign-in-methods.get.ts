import { ROUTES } from '../../contract/routes'
import { findSignInMethods } from '../../features/users/sign-in-methods'
import { failRelogin } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { defineRoute } from '../../http/route'

/** GET /auth/sign-in-methods (full authentication): 200 `{ password, totp, passkeys, providers }`; 401. */
export default defineRoute(ROUTES.signInMethods, [], async ({ ctx, user }) => {
  const methods = await findSignInMethods(ctx.db, user.userId)
  // full authentication read the account a moment ago: gone since is a session that just ended
  if (!methods) return failRelogin()
  return okEnvelope(methods)
})
