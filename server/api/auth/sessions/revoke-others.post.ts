/** POST /api/auth/sessions/revoke-others -> IAM POST /auth/sessions/revoke-others: "sign out everywhere else", 200 `{ data: { revoked } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthed(event, { method: 'POST', path: '/auth/sessions/revoke-others', body: {} })
  return relay(event, res)
})
