import { ROUTES } from '../../../../contract/routes'
import { unblockHost } from '../../../../features/oidc/blocked-hosts'
import { authFail } from '../../../../http/auth'
import { okEnvelope } from '../../../../http/respond'
import { defineRoute } from '../../../../http/route'

/** DELETE /admin/oidc-clients/blocked-hosts/:host (platform administrators, a recent sign-in): lifts a block made from the console. */
export default defineRoute(ROUTES.adminOidcHostUnblock, [], async ({ ctx, user, actor, params }) => {
  const result = await unblockHost(ctx, { userId: user.userId, actor, host: params.host })
  if (result.ok) return okEnvelope({ host: result.host })
  if (result.code === 'client_host_blocked_in_config') return authFail(409, result.code, 'The host is blocked by the configuration')
  return authFail(404, result.code, 'The host is not blocked from the console')
})
