/** POST /api/auth/undo-delete-account?token&random&reason&visitor (no body) -> IAM POST /auth/undo-delete-account: the account signs in again. */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'undoDeleteAccount')
  return relay(event, await callIamRoute(event, 'undoDeleteAccount', { query, cookies: ['canary_id'] }))
})
