/** POST /api/auth/signup -> IAM POST /signup (canary_id ensured first). 201 `{ ok, date, signedIn }`. */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { isFormPost } from '../../utils/bff/forms'
import { formErrorCode, formReply } from '../../utils/bff/input'
import { defineBffHandler } from '../../utils/bff/respond'
import { relaySignIn } from '../../utils/bff/sign-in'

export default defineBffHandler(async (event) => {
  const { res, body, returnTo } = await relaySignIn(event, 'signup')
  if (isFormPost(event)) formReply(res.status < 300 ? safeReturnTo(returnTo) : '/signup', res.status < 300 ? undefined : formErrorCode(res.status))
  return body
})
