import { ROUTES } from '../../../contract/routes'
import { revokeOtherSessions } from '../../../features/sessions/account-sessions'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** POST /auth/sessions/revoke-others `{}` (full authentication): 200 `{ revoked: n }`, every other session ended. */
export default defineRoute(ROUTES.revokeOtherSessions, [], async ({ ctx, user, actor }) => {
  const result = await revokeOtherSessions(ctx, { userId: user.userId, currentSessionId: user.sessionId, actor })
  return okEnvelope({ revoked: result.revoked })
})
