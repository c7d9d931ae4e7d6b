import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../../../contract/routes'
import { grantConsent } from '../../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../../features/oidc/provider'
import { authenticateAccount } from '../../../../../http/account-input'
import { recordUserAction } from '../../../../../features/security-events/repository'
import { interactionOutcome } from '../../../../../http/oidc'
import { readRouteInput } from '../../../../../http/route-input'

/** POST /auth/oidc/interaction/:uid/consent (full authentication): the account allows what the app asked for. */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  const { uid } = readRouteInput(event, ROUTES.oidcInteractionConsent, 'params')
  const provider = await useOidcProvider(ctx)
  const outcome = await grantConsent(ctx.db, provider, event.node, uid, user.userId)
  if (outcome.ok) {
    await recordUserAction(ctx.db, 'oidc_app_authorized', { userId: user.userId, actor, details: { clientId: outcome.clientId, firstParty: false }, at: new Date(ctx.now()) })
  }
  return interactionOutcome(outcome)
})
