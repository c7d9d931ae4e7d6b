/**
 * POST /api/auth/signup -> IAM POST /signup (canary_id ensured first). 201 `{ ok, date, signedIn,
 * warnings? }`; a no-JS form lands on its next page with `?notice=<code>` for each warning
 * (and `/account` with `?signedUp=1`).
 */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { isFormPost } from '../../utils/bff/forms'
import { formErrorCodeOf, formReply, retryOf, withNotices } from '../../utils/bff/input'
import { defineBffHandler, warningsOf } from '../../utils/bff/respond'
import { relaySignIn } from '../../utils/bff/sign-in'

export default defineBffHandler(async (event) => {
  const { res, body, returnTo } = await relaySignIn(event, 'signup')
  if (isFormPost(event)) {
    // the account page reads `signedUp=1` to ask for the address to be confirmed, as it does after a sign-up with JavaScript
    const target = safeReturnTo(returnTo)
    const landing = target === '/account' ? '/account?signedUp=1' : target
    formReply(res.status < 300 ? withNotices(landing, warningsOf(res.body)) : '/signup', res.status < 300 ? undefined : formErrorCodeOf(res), retryOf(res))
  }
  return body
})
