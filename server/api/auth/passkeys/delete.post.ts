/** POST /api/auth/passkeys/delete (signed in) `{ id }` -> IAM POST /auth/passkeys/delete. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'passkeyDelete')
  return relay(event, await callAuthedRoute(event, 'passkeyDelete', { body }))
})
