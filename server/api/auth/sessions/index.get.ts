/** GET /api/auth/sessions -> IAM GET /auth/sessions: `{ ok, date, data: { sessions: [{ id, current, createdAt, lastSeenAt, ipAddress, browser, os, country? }] } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthedRoute(event, 'listSessions', {})
  return relay(event, res)
})
