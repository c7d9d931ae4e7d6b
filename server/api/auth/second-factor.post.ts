/**
 * POST /api/auth/second-factor `{ challenge, code }` -> IAM POST /auth/second-factor (canary_id):
 * the step after a right password for an account with a second factor. 200 `{ ok, date, signedIn }`
 * (the tokens go into the session cookies); 401 wrong code, or `restart: true` to sign in again.
 * The body's shape is the route table's own schema.
 */
import { SECOND_FACTOR_ROUTES } from '../../../iam/contract/second-factor'
import { callIam } from '../../utils/bff/iam-call'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const body = await readInput(event, SECOND_FACTOR_ROUTES.secondFactor.body)
  const res = await callIam(event, { method: 'POST', path: '/auth/second-factor', body, cookies: ['canary_id'] })
  return relay(event, res)
})
