import { ROUTES } from '../../../contract/routes'
import { listAccountPasskeys } from '../../../features/second-factors/passkeys/registration-service'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /auth/passkeys (full authentication): 200 `{ passkeys }`, newest first; 401. */
export default defineRoute(ROUTES.passkeysList, [], async ({ ctx, user }) => okEnvelope({ passkeys: await listAccountPasskeys(ctx, user.userId) }))
