/**
 * POST /api/auth/email-sign-in `{ email, method: 'link' | 'code', rememberUser? }` -> IAM POST
 * /auth/email-sign-in (canary_id ensured first: a link works only in the browser that asked). 200
 * with one body whether or not the address has an account. A no-JS post (the sign-in form's
 * "Email me a link" / "Email me a code" buttons) returns to the sign-in page, which then offers the
 * code entry.
 */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { ssoRequiredConnection, ssoStartPath } from '../../../composables/sso-required'
import { ensureDeviceCookie } from '../../utils/bff/canary'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCodeOf, formReply, readIamBody, retryOf, returnToField } from '../../utils/bff/input'
import { bffRedirect, defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body: input, extra } = await readIamBody(event, 'emailSignIn', { extra: returnToField, formPath: '/login' })
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'emailSignIn', { body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) {
    // 403 sso_required: on to the organization's sign-in instead of a mail
    const sso = ssoRequiredConnection(res)
    if (sso) bffRedirect(ssoStartPath(sso, safeReturnTo(extra.returnTo)), false)
    const back = `/login?emailSent=${input.method}${extra.returnTo ? `&returnTo=${encodeURIComponent(safeReturnTo(extra.returnTo))}` : ''}`
    formReply(res.status < 300 ? back : '/login', res.status < 300 ? undefined : formErrorCodeOf(res), retryOf(res))
  }
  return body
})
