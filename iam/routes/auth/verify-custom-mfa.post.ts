import { ROUTES } from '../../contract/routes'
import { verifyCustomMfa } from '../../features/mfa/custom'
import { failAction } from '../../http/account-action-outcomes'
import { sendTokens } from '../../http/auth'
import { invalidLink } from '../../http/link-submission'
import { body, defineRoute, limit, query } from '../../http/route'

/**
 * POST /auth/verify-custom-mfa (full authentication, link in the query, `{ code }`): 200 action
 * confirmed, new tokens; 400 malformed or purpose/subject mismatch; 401 wrong or expired code;
 * 403 banned or XSS; 429; 500.
 */
export default defineRoute(ROUTES.verifyCustomMfa, [query(invalidLink), body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' }))], async ({ event, ctx, user, actor, query, body }) => {
  const result = await verifyCustomMfa(ctx, { proof: { kind: 'emailed', params: query, code: body.code }, user, actor })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
