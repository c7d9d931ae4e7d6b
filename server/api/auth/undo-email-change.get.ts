/** GET /api/auth/undo-email-change?token&random&reason&visitor -> IAM GET /auth/undo-email-change (link preview). */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'undoEmailChangeLink')
  const res = await callIamRoute(event, 'undoEmailChangeLink', { query, cookies: ['canary_id'] })
  return relay(event, res)
})
