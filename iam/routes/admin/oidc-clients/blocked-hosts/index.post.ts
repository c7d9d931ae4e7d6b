import { ROUTES } from '../../../../contract/routes'
import { blockHost } from '../../../../features/oidc/blocked-hosts'
import { okEnvelope } from '../../../../http/respond'
import { body, defineRoute } from '../../../../http/route'

/** POST /admin/oidc-clients/blocked-hosts `{ host }` (platform administrators, a recent sign-in): the host's clients get no token, their grants are revoked. */
export default defineRoute(ROUTES.adminOidcHostBlock, [body()], async ({ ctx, user, actor, body }) => okEnvelope(await blockHost(ctx, { userId: user.userId, actor, host: body.host })))
