/** GET /api/auth/sessions -> IAM GET /auth/sessions: `{ ok, date, data: { sessions: [{ id, current, createdAt, lastSeenAt, ipAddress, browser, os, country? }] } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthed(event, { method: 'GET', path: '/auth/sessions' })
  return relay(event, res)
})
