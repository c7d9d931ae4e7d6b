/** GET /api/auth/delete-account/confirm?token&random&reason&visitor -> IAM GET /auth/delete-account/confirm (link preview). */
import { callIamRoute } from '../../../utils/bff/iam-call'
import { readLinkQuery } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'deleteAccountLink')
  return relay(event, await callIamRoute(event, 'deleteAccountLink', { query, cookies: ['canary_id'] }))
})
