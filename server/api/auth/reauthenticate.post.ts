/**
 * POST /api/auth/reauthenticate `{ password }`, `{ code }` or `{}` -> IAM POST /auth/reauthenticate
 * (full authentication): the sign-in proven again before adding or removing a second factor or a
 * passkey, or changing the email. A wrong password is a 401 of the action, not a signed-out session.
 */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'reauthenticate')
  return relay(event, await callAuthedRoute(event, 'reauthenticate', { body }))
})
