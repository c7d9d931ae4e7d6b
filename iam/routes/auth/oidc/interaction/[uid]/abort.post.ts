import { ROUTES } from '../../../../../contract/routes'
import { abortInteraction } from '../../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../../features/oidc/provider'
import { interactionOutcome } from '../../../../../http/oidc'
import { defineRoute } from '../../../../../http/route'

/** POST /auth/oidc/interaction/:uid/abort: the person cancels; the app gets access_denied. */
export default defineRoute(ROUTES.oidcInteractionAbort, [], async ({ event, ctx, params }) => {
  const provider = await useOidcProvider(ctx)
  return interactionOutcome(await abortInteraction(provider, event.node, params.uid))
})
