/**
 * POST /api/auth/signup -> IAM POST /signup (canary_id ensured first). 201 `{ ok, date, signedIn,
 * warnings? }`; a no-JS form lands on its next page with `?notice=<code>` for each warning
 * (and `/account` with `?signedUp=1`).
 */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { ssoRequiredConnection, ssoStartPath } from '../../../composables/sso-required'
import { isFormPost } from '../../utils/bff/forms'
import { formErrorCodeOf, formReply, retryOf, withNotices } from '../../utils/bff/input'
import { bffRedirect, defineBffHandler, warningsOf } from '../../utils/bff/respond'
import { relaySignIn } from '../../utils/bff/sign-in'

export default defineBffHandler(async (event) => {
  const { res, body, returnTo } = await relaySignIn(event, 'signup')
  if (isFormPost(event)) {
    // 403 sso_required: the organization's identity provider creates the account at its first sign-in
    const sso = ssoRequiredConnection(res)
    if (sso) bffRedirect(ssoStartPath(sso, safeReturnTo(returnTo)), false)
    // the account page reads `signedUp=1` to ask for the address to be confirmed, as it does after a sign-up with JavaScript
    const target = safeReturnTo(returnTo)
    const landing = target === '/account' ? '/account?signedUp=1' : target
    formReply(res.status < 300 ? withNotices(landing, warningsOf(res.body)) : '/signup', res.status < 300 ? undefined : formErrorCodeOf(res), retryOf(res))
  }
  return body
})
