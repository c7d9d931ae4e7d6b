import { ROUTES } from '../../../contract/routes'
import { listSessions } from '../../../features/sessions/account-sessions'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /auth/sessions (full authentication): the user's live sessions, newest first, this one marked. */
export default defineRoute(ROUTES.listSessions, [], async ({ ctx, user }) =>
  okEnvelope({ sessions: await listSessions(ctx, { userId: user.userId, currentSessionId: user.sessionId }) }),
)
