import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { verifyAdaptiveMfa } from '../../features/account-actions/verify-mfa'
import { getFingerPrint, rejectXss, sendTokens } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { actorOf, readLinkQuery } from '../../http/link-submission'
import { getClientIp, getJsonBody } from '../../http/request'
import { readRouteInput } from '../../http/route-input'
import { failAction } from '../../http/account-action-outcomes'

/**
 * POST /auth/verify-mfa (link in the query, `{ code }`): 200 new tokens and session cookie;
 * 400 malformed input, bad/used/expired link or purpose/subject mismatch; 401 wrong or expired
 * code; 403 banned device or XSS; 429; 500.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const params = readLinkQuery(event, ROUTES.verifyMfa)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await getFingerPrint(event)
  await rejectXss(event, raw)
  const body = readRouteInput(event, ROUTES.verifyMfa, 'body')
  await enforceRateLimit(ctx, 'codes', { ip: ipAddress, on: 'ip' })
  const visitor = event.context.visitor
  const result = await verifyAdaptiveMfa(ctx, {
    params,
    code: body.code,
    actor: { ...actorOf(event, visitor?.id ?? null), visitorPublicId: visitor?.visitor_id ?? null },
  })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
