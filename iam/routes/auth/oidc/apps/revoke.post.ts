import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../../contract/routes'
import { revokeConnectedApp } from '../../../../features/oidc/connected-apps'
import { authenticateAccount, readAccountBody } from '../../../../http/account-input'
import { authFail } from '../../../../http/auth'
import { okEnvelope } from '../../../../http/respond'

/** POST /auth/oidc/apps/revoke (full authentication) `{ clientId }`: the app loses its access to the account. */
export default defineEventHandler(async (event) => {
  const { ctx, user, actor } = await authenticateAccount(event)
  const { clientId } = await readAccountBody(event, ROUTES.oidcRevokeApp)
  const revoked = await revokeConnectedApp(ctx.db, { userId: user.userId, clientId, actor, now: ctx.now() })
  if (!revoked) return authFail(404, 'That app has no access to your account')
  return okEnvelope({ revoked: true as const })
})
