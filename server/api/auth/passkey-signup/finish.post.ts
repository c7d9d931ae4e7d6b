/**
 * POST /api/auth/passkey-signup/finish `{ ceremonyId, credential, rememberUser? }` -> IAM POST
 * /auth/passkey-signup/finish (canary_id: the browser that asked for the options): 201 `{ ok,
 * date, signedIn }` with the tokens in the session cookies, as the password sign-up answers.
 */
import { callIamRoute } from '../../../utils/bff/iam-call'
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'passkeySignupFinish')
  return relay(event, await callIamRoute(event, 'passkeySignupFinish', { body, cookies: ['canary_id'] }))
})
