/** POST /api/auth/totp/enable (signed in) `{ code }` -> IAM POST /auth/totp/enable: `{ data: { recoveryCodes } }`, shown once. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'totpEnable')
  return relay(event, await callAuthedRoute(event, 'totpEnable', { body }))
})
