import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { revokeSession } from '../../../features/sessions/account-sessions'
import { authFail } from '../../../http/auth'
import { authenticateAccount, readAccountBody } from '../../../http/account-input'
import { okEnvelope } from '../../../http/respond'

/** One body for an unknown id and another user's id: nothing tells them apart. */
const NOT_FOUND = 'Session not found'

/** POST /auth/sessions/revoke `{ id }` (full authentication): 200 ended; 400 validation; 404 unknown or foreign id. */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  const body = await readAccountBody(event, ROUTES.revokeSession)
  const result = await revokeSession(ctx, { userId: user.userId, sessionId: body.id, actor })
  if (!result.ok) return authFail(404, NOT_FOUND)
  return okEnvelope({ revoked: 1 as const })
})
