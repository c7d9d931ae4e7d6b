import { defineEventHandler } from 'h3'
import { SECURITY_EVENTS_DEFAULT_LIMIT } from '../../contract/account-security'
import { ROUTES } from '../../contract/routes'
import { listOwnSecurityEvents, parseEventCursor } from '../../features/security-events/event-page'
import { authFail } from '../../http/auth'
import { authenticateAccount } from '../../http/account-input'
import { readRouteInput } from '../../http/route-input'
import { okEnvelope } from '../../http/respond'

const BAD_CURSOR = 'before is the nextBefore of a previous page'

/** GET /auth/security-events?limit=&before= (full authentication): the user's own events, newest first; 400 bad limit or before. */
export default defineEventHandler(async (event) => {
  const { ctx, user } = await authenticateAccount(event)
  const query = readRouteInput(event, ROUTES.listSecurityEvents, 'query')
  const before = query.before === undefined ? null : parseEventCursor(query.before)
  if (query.before !== undefined && !before) return authFail(400, 'Validation failed', { fields: { before: BAD_CURSOR } })
  return okEnvelope(await listOwnSecurityEvents(ctx, { userId: user.userId, limit: query.limit === undefined ? SECURITY_EVENTS_DEFAULT_LIMIT : Number(query.limit), before }))
})
