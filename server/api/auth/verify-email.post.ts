/** POST /api/auth/verify-email?token&random&reason&visitor (no body) -> IAM POST /auth/verify-email. */
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, retryOf, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'verifyEmail')
  const back = `/auth/verify-email?${new URLSearchParams(query).toString()}`
  const res = await callIamRoute(event, 'verifyEmail', { query, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) formReply(res.status < 300 ? '/account?verified=1' : back, res.status < 300 ? undefined : formErrorCode(res.status), retryOf(res))
  return body
})
