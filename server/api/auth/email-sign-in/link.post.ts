/**
 * POST /api/auth/email-sign-in/link?token&random&reason&visitor (no body) -> IAM POST
 * /auth/email-sign-in/link with this browser's canary_id: the link works only in the browser that
 * asked for it. 200 `{ ok, date, signedIn }` (tokens into the session cookies) or a second-factor
 * challenge; 403 `email_sign_in_other_device` in another browser.
 */
import { ensureDeviceCookie } from '../../../utils/bff/canary'
import { isFormPost } from '../../../utils/bff/forms'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { formErrorCode, formReply, readLinkQuery, retryOf } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'emailSignInLink')
  // a browser without a device cookie is not the one that asked: it gets one, and the IAM says so
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'emailSignInLink', { query, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) {
    const back = `/auth/email-sign-in?${new URLSearchParams(query).toString()}`
    // the second-factor step is a script-driven page state, as after a password (api/auth/login.post.ts)
    if (res.status === 200 && body.secondFactor) formReply('/login', 'second_factor_needs_js')
    const code = typeof body.code === 'string' && body.code === 'email_sign_in_other_device' ? body.code : formErrorCode(res.status)
    formReply(res.status < 300 ? '/account' : back, res.status < 300 ? undefined : code, retryOf(res))
  }
  return body
})
