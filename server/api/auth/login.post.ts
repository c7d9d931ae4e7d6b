/** POST /api/auth/login -> IAM POST /login (canary_id ensured first). 200 `{ ok, date, signedIn }`. */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { ensureDeviceCookie } from '../../utils/bff/canary'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, readIamBody, returnToField } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body: input, extra } = await readIamBody(event, 'login', { extra: returnToField, formPath: '/login' })
  const { returnTo } = extra
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'login', { body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) {
    // the second-factor step is a script-driven page state: a no-JS post cannot carry its challenge on
    if (res.status === 200 && body.secondFactor) formReply('/login', 'second_factor_needs_js')
    const back = returnTo ? `/login?returnTo=${encodeURIComponent(safeReturnTo(returnTo))}` : '/login'
    formReply(res.status < 300 ? safeReturnTo(returnTo) : back, res.status < 300 ? undefined : formErrorCode(res.status))
  }
  return body
})
