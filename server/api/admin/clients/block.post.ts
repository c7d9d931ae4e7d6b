/** POST /api/admin/clients/block `{ host }` -> IAM POST /admin/oidc-clients/blocked-hosts (platform administrators, a recent sign-in): the host's clients get no token, their grants are revoked. */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'adminOidcHostBlock')
  return relay(event, await callAuthedRoute(event, 'adminOidcHostBlock', { body }))
})
