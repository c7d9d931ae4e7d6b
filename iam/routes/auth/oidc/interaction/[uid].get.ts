import { ROUTES } from '../../../../contract/routes'
import { describeInteraction } from '../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../features/oidc/provider'
import { interactionGone } from '../../../../http/oidc'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** GET /auth/oidc/interaction/:uid: what the sign-in or consent request asks; 404 when this browser has no such request. */
export default defineRoute(ROUTES.oidcInteraction, [], async ({ event, ctx, params }) => {
  const provider = await useOidcProvider(ctx)
  const view = await describeInteraction(provider, event.node.req, event.node.res, params.uid, ctx.config.oidc.resourceServers)
  if (!view) return interactionGone()
  return okEnvelope(view)
})
