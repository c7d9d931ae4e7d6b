/** POST /api/auth/forgot-password `{ email }` -> IAM POST /auth/forgot-password (200 whether or not the address exists). */
import { ssoRequiredConnection, ssoStartPath } from '../../../composables/sso-required'
import { ensureDeviceCookie } from '../../utils/bff/canary'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCodeOf, formReply, retryOf, readIamBody } from '../../utils/bff/input'
import { bffRedirect, defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body: input } = await readIamBody(event, 'forgotPassword', { formPath: '/forgot-password' })
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'forgotPassword', { body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  // 403 sso_required: the password is the organization's identity provider's; a no-JS post goes on to its start
  const sso = isFormPost(event) ? ssoRequiredConnection(res) : null
  if (sso) bffRedirect(ssoStartPath(sso, '/account'), false)
  if (isFormPost(event)) formReply('/forgot-password', res.status < 300 ? 'sent' : formErrorCodeOf(res), retryOf(res))
  return body
})
