import { ROUTES } from '../../../../../contract/routes'
import { grantConsent } from '../../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../../features/oidc/provider'
import { recordUserAction } from '../../../../../features/security-events/repository'
import { interactionOutcome } from '../../../../../http/oidc'
import { defineRoute } from '../../../../../http/route'

/** POST /auth/oidc/interaction/:uid/consent (full authentication): the account allows what the app asked for. */
export default defineRoute(ROUTES.oidcInteractionConsent, [], async ({ event, ctx, user, actor, params }) => {
  const provider = await useOidcProvider(ctx)
  const outcome = await grantConsent(ctx.db, provider, event.node, params.uid, user.userId)
  if (outcome.ok) {
    await recordUserAction(ctx.db, 'oidc_app_authorized', { userId: user.userId, actor, details: { clientId: outcome.clientId, firstParty: false }, at: new Date(ctx.now()) })
  }
  return interactionOutcome(outcome)
})
