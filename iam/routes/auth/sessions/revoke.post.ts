import { ROUTES } from '../../../contract/routes'
import { revokeSession } from '../../../features/sessions/account-sessions'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** One body for an unknown id and another user's id: nothing tells them apart. */
const NOT_FOUND = 'Session not found'

/** POST /auth/sessions/revoke `{ id }` (full authentication): 200 ended; 400 validation; 404 unknown or foreign id. */
export default defineRoute(ROUTES.revokeSession, [], async ({ ctx, user, actor, body }) => {
  const result = await revokeSession(ctx, { userId: user.userId, sessionId: body.id, actor })
  if (!result.ok) return authFail(404, 'session_not_found', NOT_FOUND)
  return okEnvelope({ revoked: 1 as const })
})
