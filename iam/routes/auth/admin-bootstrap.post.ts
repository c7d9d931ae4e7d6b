import { ROUTES } from '../../contract/routes'
import { redeemAdminBootstrap } from '../../features/admin/bootstrap'
import { authFail } from '../../http/auth'
import { okEnvelope } from '../../http/respond'
import { answerFailure, defineRoute } from '../../http/route'

const FAILURES = {
  admin_bootstrap_code_invalid: () => authFail(403, 'admin_bootstrap_code_invalid', 'That is not the code this server wrote: copy it again from the file `npm start` named'),
  admin_exists: () => authFail(409, 'admin_exists', 'An administrator exists already: ask them to make you one'),
} as const

/** POST /auth/admin-bootstrap: the signed-in account becomes the first platform administrator with the start's one-time code. */
export default defineRoute(ROUTES.adminBootstrap, [], async ({ ctx, user, actor, body }) => {
  const result = await redeemAdminBootstrap(ctx, { userId: user.userId, code: body.code, actor })
  if (!result.ok) return answerFailure(FAILURES, result)
  ctx.log.info('first platform administrator made with the bootstrap code', { userId: user.userId })
  return okEnvelope({ admin: true as const })
})
