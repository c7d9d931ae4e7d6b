/** GET /api/admin/clients -> IAM GET /admin/oidc-clients (platform administrators): every client of the OpenID Provider, and the blocked document hosts. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'adminOidcClients', {})))
