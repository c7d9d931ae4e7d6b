import { ROUTES } from '../../../../contract/routes'
import { revokeConnectedApp } from '../../../../features/oidc/connected-apps'
import { authFail } from '../../../../http/auth'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** POST /auth/oidc/apps/revoke (full authentication) `{ clientId }`: the app loses its access to the account. */
export default defineRoute(ROUTES.oidcRevokeApp, [], async ({ ctx, user, actor, body }) => {
  const revoked = await revokeConnectedApp(ctx.db, { userId: user.userId, clientId: body.clientId, actor, now: ctx.now() })
  if (!revoked) return authFail(404, 'app_not_found', 'That app has no access to your account')
  return okEnvelope({ revoked: true as const })
})
