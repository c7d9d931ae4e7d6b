/**
 * POST /api/auth/change-password `{ currentPassword, password, confirmedPassword }` -> IAM POST
 * /auth/change-password (full authentication). On 200 the IAM issues a new token pair for this
 * session (moved into the cookies by relay) and ends every other session; a wrong current password
 * is a 401 of the action, not a signed-out session (callAuthed checks the session before clearing it).
 */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'changePassword')
  const res = await callAuthedRoute(event, 'changePassword', { body })
  return relay(event, res)
})
