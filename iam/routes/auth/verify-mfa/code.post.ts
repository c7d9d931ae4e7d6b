import { ROUTES } from '../../../contract/routes'
import { verifyAdaptiveMfaCode } from '../../../features/mfa/verify-adaptive'
import { failAction } from '../../../http/account-action-outcomes'
import { sendTokens } from '../../../http/auth'
import { getSessionCookie } from '../../../http/cookies'
import { body, defineRoute, device, limit } from '../../../http/route'

/**
 * POST /auth/verify-mfa/code `{ code }` (session and device cookies): the emailed code of the
 * challenge waiting on this session, typed where it met the person. 200 new tokens and session
 * cookie; 400 no code waits or another device; 401 wrong or expired code; 403 banned device; 429.
 */
export default defineRoute(ROUTES.verifyMfaCode, [device, body(), limit('codes', ({ ip }) => ({ ip, on: 'ip' }))], async ({ event, ctx, actor, body }) => {
  const visitor = event.context.visitor
  const result = await verifyAdaptiveMfaCode(ctx, {
    refreshToken: getSessionCookie(event) ?? null,
    code: body.code,
    actor: { ...actor, visitorPublicId: visitor?.visitor_id ?? null },
  })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
