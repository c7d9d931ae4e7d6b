import { ROUTES } from '../../contract/routes'
import { resetPassword } from '../../features/account-actions/password-reset'
import { failAction } from '../../http/account-action-outcomes'
import { invalidLink } from '../../http/link-submission'
import { okEnvelope, withWarnings } from '../../http/respond'
import { body, defineRoute, device, limit, query } from '../../http/route'

/**
 * POST /auth/reset-password (PASSWORD_RESET link in the query, `{ password, confirmedPassword,
 * revokeApiTokens? }`): 200 password replaced, every session (and with revokeApiTokens every API
 * token) revoked, notice mailed; 400 validation, mismatch, breached
 * password or bad link; 403 XSS (device banned) or banned device; 429.
 */
export default defineRoute(
  ROUTES.resetPassword,
  // passwords are never rendered: only the other fields are checked for markup (as login does)
  [limit('codes', ({ ip }) => ({ ip, on: 'reset' })), query(invalidLink), device, body({ secret: ['password', 'confirmedPassword'] })],
  async ({ ctx, actor, query, body }) => {
    const result = await resetPassword(ctx, {
      params: query,
      password: body.password,
      confirmedPassword: body.confirmedPassword,
      revokeApiTokens: body.revokeApiTokens === true,
      actor,
    })
    if (!result.ok) return failAction(result)
    return withWarnings(okEnvelope({ message: 'Your password has been changed. Sign in with the new password.' }), result.warnings)
  },
)
