/**
 * POST /api/auth/mfa?token&random&reason&visitor `{ code }` -> IAM POST /auth/verify-mfa. On 200 the
 * IAM issues a new token pair: the access token goes into `__Secure-a`, `session` is forwarded.
 */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readIamBody, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'verifyMfa')
  const { body } = await readIamBody(event, 'verifyMfa')
  const res = await callIamRoute(event, 'verifyMfa', { query, body, cookies: ['canary_id', 'session'] })
  return relay(event, res)
})
