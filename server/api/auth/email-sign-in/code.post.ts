/**
 * POST /api/auth/email-sign-in/code `{ email, code }` -> IAM POST /auth/email-sign-in/code
 * (canary_id ensured first): the mailed code works in any browser. 200 `{ ok, date, signedIn }` or
 * a second-factor challenge; 401 `code_invalid`; 429 `code_entry_locked`.
 */
import { safeReturnTo } from '../../../../composables/safe-return-to'
import { ensureDeviceCookie } from '../../../utils/bff/canary'
import { isFormPost } from '../../../utils/bff/forms'
import { callIamRoute } from '../../../utils/bff/iam-call'
import { formErrorCode, formReply, readIamBody, retryOf, returnToField } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body: input, extra } = await readIamBody(event, 'emailSignInCode', { extra: returnToField, formPath: '/login?emailSent=code' })
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'emailSignInCode', { body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) {
    if (res.status === 200 && body.secondFactor) formReply('/login', 'second_factor_needs_js')
    formReply(res.status < 300 ? safeReturnTo(extra.returnTo) : '/login?emailSent=code', res.status < 300 ? undefined : formErrorCode(res.status), retryOf(res))
  }
  return body
})
