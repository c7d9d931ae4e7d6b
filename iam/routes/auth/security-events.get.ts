import { SECURITY_EVENTS_DEFAULT_LIMIT } from '../../contract/account-security'
import { ROUTES } from '../../contract/routes'
import { listOwnSecurityEvents, parseEventCursor } from '../../features/security-events/event-page'
import { authFail } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { defineRoute } from '../../http/route'

const BAD_CURSOR = 'before is the nextBefore of a previous page'

/** GET /auth/security-events?limit=&before= (full authentication): the user's own events, newest first; 400 bad limit or before. */
export default defineRoute(ROUTES.listSecurityEvents, [], async ({ ctx, user, query }) => {
  const before = query.before === undefined ? null : parseEventCursor(query.before)
  if (query.before !== undefined && !before) return authFail(400, 'validation_failed', 'Validation failed', { fields: { before: BAD_CURSOR } })
  return okEnvelope(await listOwnSecurityEvents(ctx, { userId: user.userId, limit: query.limit === undefined ? SECURITY_EVENTS_DEFAULT_LIMIT : Number(query.limit), before }))
})
