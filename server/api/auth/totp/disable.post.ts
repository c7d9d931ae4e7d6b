/** POST /api/auth/totp/disable (signed in) `{ code }` (TOTP or recovery code) -> IAM POST /auth/totp/disable. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'totpDisable')
  return relay(event, await callAuthedRoute(event, 'totpDisable', { body }))
})
