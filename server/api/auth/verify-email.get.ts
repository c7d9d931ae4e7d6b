/** GET /api/auth/verify-email?token&random&reason&visitor -> IAM GET /auth/verify-email (link preview). */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'verifyEmailLink')
  const res = await callIamRoute(event, 'verifyEmailLink', { query, cookies: ['canary_id'] })
  return relay(event, res)
})
