/** POST /api/auth/confirm?token&random&reason&visitor `{ code }` -> IAM POST /auth/verify-custom-mfa (full authentication). */
import { readIamBody, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'verifyCustomMfa')
  const { body } = await readIamBody(event, 'verifyCustomMfa')
  const res = await callAuthedRoute(event, 'verifyCustomMfa', { query, body })
  return relay(event, res)
})
