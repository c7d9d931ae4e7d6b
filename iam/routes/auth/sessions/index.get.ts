import { defineEventHandler } from 'h3'
import { listSessions } from '../../../features/sessions/account-sessions'
import { authenticateAccount } from '../../../http/account-input'
import { okEnvelope } from '../../../http/respond'

/** GET /auth/sessions (full authentication): the user's live sessions, newest first, this one marked. */
export default defineEventHandler(async (event) => {
  const { ctx, user } = await authenticateAccount(event)
  return okEnvelope({ sessions: await listSessions(ctx, { userId: user.userId, currentSessionId: user.sessionId }) })
})
