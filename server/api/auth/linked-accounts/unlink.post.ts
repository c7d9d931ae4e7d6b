/** POST /api/auth/linked-accounts/unlink (signed in) `{ provider }` -> IAM POST /auth/linked-accounts/unlink. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'unlinkProvider')
  return relay(event, await callAuthedRoute(event, 'unlinkProvider', { body }))
})
