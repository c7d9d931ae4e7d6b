import { ROUTES } from '../../../contract/routes'
import { totpStatus } from '../../../features/second-factors/totp/totp-service'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /auth/totp (full authentication): 200 `{ enabled, recoveryCodesLeft }`; 401. */
export default defineRoute(ROUTES.totpStatus, [], async ({ ctx, user }) => okEnvelope(await totpStatus(ctx, user.userId)))
