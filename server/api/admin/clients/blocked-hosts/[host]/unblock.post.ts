/** POST /api/admin/clients/blocked-hosts/:host/unblock -> IAM DELETE /admin/oidc-clients/blocked-hosts/:host (platform administrators, a recent sign-in): lifts a block made from the console. */
import { readIamParams } from '../../../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminOidcHostUnblock', 'This is not a host name.')
  return relay(event, await callAuthedRoute(event, 'adminOidcHostUnblock', { params }))
})
