/** POST /api/auth/passkeys/rename (signed in) `{ id, name }` -> IAM POST /auth/passkeys/rename. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'passkeyRename')
  return relay(event, await callAuthedRoute(event, 'passkeyRename', { body }))
})
