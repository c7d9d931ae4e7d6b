import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../../contract/routes'
import { useIam } from '../../../../context'
import { describeInteraction } from '../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../features/oidc/provider'
import { interactionGone } from '../../../../http/oidc'
import { okEnvelope } from '../../../../http/respond'
import { readRouteInput } from '../../../../http/route-input'

/** GET /auth/oidc/interaction/:uid: what the sign-in or consent request asks; 404 when this browser has no such request. */
export default defineEventHandler(async (event) => {
  const { uid } = readRouteInput(event, ROUTES.oidcInteraction, 'params')
  const provider = await useOidcProvider(useIam())
  const view = await describeInteraction(provider, event.node.req, event.node.res, uid)
  if (!view) return interactionGone()
  return okEnvelope(view)
})
