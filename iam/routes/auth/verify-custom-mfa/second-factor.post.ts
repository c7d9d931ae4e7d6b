import { ROUTES } from '../../../contract/routes'
import { verifyCustomMfa } from '../../../features/mfa/custom'
import { failAction } from '../../../http/account-action-outcomes'
import { sendTokens } from '../../../http/auth'
import { body, defineRoute, limit } from '../../../http/route'

/**
 * POST /auth/verify-custom-mfa/second-factor (full authentication, `{ reason, code }`): completes
 * the flow this session started for `reason` with a TOTP or recovery code instead of the emailed
 * code. 200 new tokens; 400 validation or no pending flow; 401 wrong code; 403; 429.
 */
export default defineRoute(ROUTES.verifyCustomMfaSecondFactor, [body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' }))], async ({ event, ctx, user, actor, body }) => {
  const result = await verifyCustomMfa(ctx, { proof: { kind: 'second_factor', reason: body.reason, code: body.code }, user, actor })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
