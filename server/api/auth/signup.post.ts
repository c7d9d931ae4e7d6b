/** POST /api/auth/signup -> IAM POST /signup (canary_id ensured first). 201 `{ ok, date, signedIn }`. */
import { safeReturnTo } from '../../../composables/safe-return-to'
import { ensureDeviceCookie } from '../../utils/bff/canary'
import { isFormPost } from '../../utils/bff/forms'
import { callIamRoute } from '../../utils/bff/iam-call'
import { formErrorCode, formReply, readIamBody, returnToField } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body: input, extra } = await readIamBody(event, 'signup', { extra: returnToField, formPath: '/signup' })
  const { returnTo } = extra
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, 'signup', { body: input, cookies: ['canary_id'] })
  const body = relay(event, res)
  if (isFormPost(event)) formReply(res.status < 300 ? safeReturnTo(returnTo) : '/signup', res.status < 300 ? undefined : formErrorCode(res.status))
  return body
})
