/**
 * POST /api/auth/mfa/code `{ code }` -> IAM POST /auth/verify-mfa/code: the emailed code typed where
 * the challenge met the person. On 200 the IAM issues a new token pair: the access token goes
 * into `__Secure-a`, `session` is forwarded (as POST /api/auth/mfa with the link).
 */
import { callIamRoute } from '../../../utils/bff/iam-call'
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'verifyMfaCode')
  return relay(event, await callIamRoute(event, 'verifyMfaCode', { body, cookies: ['canary_id', 'session'] }))
})
