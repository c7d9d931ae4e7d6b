/** GET /api/auth/undo-delete-account?token&random&reason&visitor -> IAM GET /auth/undo-delete-account (link preview). */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'undoDeleteAccountLink')
  return relay(event, await callIamRoute(event, 'undoDeleteAccountLink', { query, cookies: ['canary_id'] }))
})
