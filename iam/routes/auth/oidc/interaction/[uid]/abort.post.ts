import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../../../contract/routes'
import { useIam } from '../../../../../context'
import { abortInteraction } from '../../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../../features/oidc/provider'
import { interactionOutcome } from '../../../../../http/oidc'
import { readRouteInput } from '../../../../../http/route-input'

/** POST /auth/oidc/interaction/:uid/abort: the person cancels; the app gets access_denied. */
export default defineEventHandler(async (event) => {
  const { uid } = readRouteInput(event, ROUTES.oidcInteractionAbort, 'params')
  const provider = await useOidcProvider(useIam())
  return interactionOutcome(await abortInteraction(provider, event.node, uid))
})
