import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { revokeOtherSessions } from '../../../features/sessions/account-sessions'
import { authenticateAccount, readAccountBody } from '../../../http/account-input'
import { okEnvelope } from '../../../http/respond'

/** POST /auth/sessions/revoke-others `{}` (full authentication): 200 `{ revoked: n }`, every other session ended. */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  await readAccountBody(event, ROUTES.revokeOtherSessions)
  const result = await revokeOtherSessions(ctx, { userId: user.userId, currentSessionId: user.sessionId, actor })
  return okEnvelope({ revoked: result.revoked })
})
