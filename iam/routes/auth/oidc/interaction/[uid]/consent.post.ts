import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../../../contract/routes'
import { grantConsent } from '../../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../../features/oidc/provider'
import { authenticateAccount } from '../../../../../http/account-input'
import { interactionOutcome } from '../../../../../http/oidc'
import { readRouteInput } from '../../../../../http/route-input'

/** POST /auth/oidc/interaction/:uid/consent (full authentication): the account allows what the app asked for. */
export default defineEventHandler(async (event) => {
  const { ctx, user } = await authenticateAccount(event)
  const { uid } = readRouteInput(event, ROUTES.oidcInteractionConsent, 'params')
  const provider = await useOidcProvider(ctx)
  return interactionOutcome(await grantConsent(ctx.db, provider, event.node, uid, user.userId))
})
