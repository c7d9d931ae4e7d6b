/** POST /api/auth/sessions/revoke-others -> IAM POST /auth/sessions/revoke-others: "sign out everywhere else", 200 `{ data: { revoked } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthedRoute(event, 'revokeOtherSessions', { body: {} })
  return relay(event, res)
})
