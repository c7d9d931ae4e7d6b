/** POST /api/auth/login -> IAM POST /login (canary_id ensured first). 200 `{ ok, date, signedIn }`. */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { isFormPost } from '../../utils/bff/forms'
import { formErrorCode, formReply, retryOf } from '../../utils/bff/input'
import { defineBffHandler } from '../../utils/bff/respond'
import { relaySignIn } from '../../utils/bff/sign-in'

export default defineBffHandler(async (event) => {
  const { res, body, returnTo } = await relaySignIn(event, 'login')
  if (isFormPost(event)) {
    // the second-factor step is a script-driven page state: a no-JS post cannot carry its challenge on
    if (res.status === 200 && body.secondFactor) formReply('/login', 'second_factor_needs_js')
    const back = returnTo ? `/login?returnTo=${encodeURIComponent(safeReturnTo(returnTo))}` : '/login'
    formReply(res.status < 300 ? safeReturnTo(returnTo) : back, res.status < 300 ? undefined : formErrorCode(res.status), retryOf(res))
  }
  return body
})
