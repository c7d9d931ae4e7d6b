/**
 * POST /api/auth/set-password `{ password, confirmedPassword }` (signed in) -> IAM POST
 * /auth/set-password: a first password for an account that signs in through a provider. A 403
 * `reauthenticate: true` is relayed as it is: the page proves the sign-in again and repeats.
 */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'setPassword')
  return relay(event, await callAuthedRoute(event, 'setPassword', { body }))
})
