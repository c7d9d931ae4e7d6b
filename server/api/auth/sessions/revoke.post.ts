/** POST /api/auth/sessions/revoke `{ id }` -> IAM POST /auth/sessions/revoke: 200 ended, 404 unknown (or another user's) session. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'revokeSession')
  const res = await callAuthedRoute(event, 'revokeSession', { body })
  return relay(event, res)
})
