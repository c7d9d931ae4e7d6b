import { ROUTES } from '../../../../contract/routes'
import { startRegistration } from '../../../../features/second-factors/passkeys/registration-service'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** POST /auth/passkeys/register/options (full authentication): 200 `{ options }` (creation options); 401; 403 address never
 * confirmed (`verifyEmail`) or re-authentication required (`reauthenticate`). */
export default defineRoute(ROUTES.passkeyRegisterOptions, [], async ({ ctx, user }) =>
  okEnvelope({ options: await startRegistration(ctx, { userId: user.userId, visitorRowId: user.visitorRowId }) }),
)
