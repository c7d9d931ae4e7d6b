import { ROUTES } from '../../contract/routes'
import { verifyAdaptiveMfa } from '../../features/mfa/verify-adaptive'
import { failAction } from '../../http/account-action-outcomes'
import { sendTokens } from '../../http/auth'
import { invalidLink } from '../../http/link-submission'
import { body, defineRoute, device, limit, query } from '../../http/route'

/**
 * POST /auth/verify-mfa (link in the query, `{ code }`): 200 new tokens and session cookie;
 * 400 malformed input, bad/used/expired link or purpose/subject mismatch; 401 wrong or expired
 * code; 403 banned device or XSS; 429; 500.
 */
export default defineRoute(
  ROUTES.verifyMfa,
  [query(invalidLink), device, body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' }))],
  async ({ event, ctx, actor, query, body }) => {
    const visitor = event.context.visitor
    const result = await verifyAdaptiveMfa(ctx, { params: query, code: body.code, actor: { ...actor, visitorPublicId: visitor?.visitor_id ?? null } })
    if (!result.ok) return failAction(result)
    return sendTokens(event, ctx, result.pair, 200)
  },
)
