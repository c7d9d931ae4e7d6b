import { ROUTES } from '../../../contract/routes'
import { unlinkProvider } from '../../../features/oauth-login/unlink-provider'
import { authFail, failRelogin } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

const LAST_WAY_IN = 'This is the only way to sign in to this account. Set a password or add a passkey first, then unlink it.'

/**
 * POST /auth/linked-accounts/unlink `{ provider }` (full authentication, recent sign-in): 200
 * `{ unlinked: true }`; 400 validation; 403 re-authentication required; 404 not linked; 409 the
 * last way in. Not under /auth/OAuth/: that path's segment is a provider's name.
 */
export default defineRoute(ROUTES.unlinkProvider, [], async ({ ctx, user, actor, body }) => {
  const result = await unlinkProvider(ctx, { userId: user.userId, provider: body.provider, actor })
  if (result.ok) return okEnvelope({ unlinked: true as const })
  if (result.code === 'not_linked') return authFail(404, 'provider_not_linked', 'No account of this provider is linked')
  if (result.code === 'last_way_in') return authFail(409, 'last_way_in', LAST_WAY_IN)
  return failRelogin()
})
