/** POST /api/auth/undo-email-change?token&random&reason&visitor (no body) -> IAM POST /auth/undo-email-change. */
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, retryOf, readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'undoEmailChange')
  const back = `/auth/undo-email-change?${new URLSearchParams(query).toString()}`
  const res = await callIamRoute(event, 'undoEmailChange', { query, cookies: ['canary_id'] })
  const body = relay(event, res)
  // every session was revoked at the IAM: this browser signs in again
  if (isFormPost(event)) formReply(res.status < 300 ? '/login?emailRestored=1' : back, res.status < 300 ? undefined : formErrorCode(res.status), retryOf(res))
  return body
})
