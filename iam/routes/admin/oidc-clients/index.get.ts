import { ROUTES } from '../../../contract/routes'
import { listOidcClients } from '../../../features/oidc/client-directory'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /admin/oidc-clients (platform administrators, a recent sign-in): every client of the OpenID Provider, and the blocked document hosts. */
export default defineRoute(ROUTES.adminOidcClients, [], async ({ ctx }) => okEnvelope(await listOidcClients(ctx)))
