/**
 * POST /api/auth/email?token&random&reason&visitor `{ code, newEmail }` -> IAM POST /update/email
 * (full authentication; the link is the custom MFA link of reason CHANGE_EMAIL). On 200 the IAM
 * issues a new token pair and revokes the user's other sessions.
 */
import { readIamBody, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'updateEmail')
  const { body } = await readIamBody(event, 'updateEmail')
  const res = await callAuthedRoute(event, 'updateEmail', { query, body })
  return relay(event, res)
})
