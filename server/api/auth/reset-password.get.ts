/** GET /api/auth/reset-password?token&random&reason&visitor -> IAM GET /auth/reset-password (link preview). */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'resetPasswordLink')
  const res = await callIamRoute(event, 'resetPasswordLink', { query, cookies: ['canary_id'] })
  return relay(event, res)
})
