/** POST /api/auth/apps/revoke (signed in) `{ clientId }` -> IAM POST /auth/oidc/apps/revoke. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'oidcRevokeApp')
  return relay(event, await callAuthedRoute(event, 'oidcRevokeApp', { body }))
})
