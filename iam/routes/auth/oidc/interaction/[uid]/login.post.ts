import { ROUTES } from '../../../../../contract/routes'
import { finishLogin } from '../../../../../features/oidc/interactions'
import { useOidcProvider } from '../../../../../features/oidc/provider'
import { interactionOutcome } from '../../../../../http/oidc'
import { defineRoute } from '../../../../../http/route'

/**
 * POST /auth/oidc/interaction/:uid/login (full authentication): the signed-in account continues
 * the request; 403 `{ reauthenticate: true }` when it asked for a fresher sign-in than the
 * session's (prompt=login, max_age).
 */
export default defineRoute(ROUTES.oidcInteractionLogin, [], async ({ event, ctx, user, params }) => {
  const provider = await useOidcProvider(ctx)
  const signInProofAt = event.context.signInProofAt ?? 0
  const outcome = await finishLogin(ctx.db, provider, event.node, params.uid, { userId: user.userId, sessionId: user.sessionId, signInProofAt }, ctx.now())
  return interactionOutcome(outcome)
})
