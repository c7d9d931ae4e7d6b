/** POST /api/auth/forgot-password `{ email }` -> IAM POST /auth/forgot-password (200 whether or not the address exists). */
import { ensureDeviceCookie } from '../../utils/bff/canary'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCodeOf, formReply, retryOf, readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body: input } = await readIamBody(event, 'forgotPassword', { formPath: '/forgot-password' })
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'forgotPassword', { body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) formReply('/forgot-password', res.status < 300 ? 'sent' : formErrorCodeOf(res), retryOf(res))
  return body
})
