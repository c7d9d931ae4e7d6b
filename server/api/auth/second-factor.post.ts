/**
 * POST /api/auth/second-factor `{ challenge, code }` -> IAM POST /auth/second-factor (canary_id):
 * the step after a right password for an account with a second factor. 200 `{ ok, date, signedIn }`
 * (the tokens go into the session cookies); 401 wrong code, or `restart: true` to sign in again.
 */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'secondFactor')
  return relay(event, await callIamRoute(event, 'secondFactor', { body, cookies: ['canary_id'] }))
})
