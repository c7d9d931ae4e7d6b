/** GET /api/auth/mfa?token&random&reason&visitor -> IAM GET /auth/verify-mfa (link preview; counts against the preview limit). */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'verifyMfaLink')
  const res = await callIamRoute(event, 'verifyMfaLink', { query, cookies: ['canary_id', 'session'] })
  return relay(event, res)
})
