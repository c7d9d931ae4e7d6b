import { defineEventHandler, getQuery } from 'h3'
import { z } from 'zod'
import { useIam } from '../../context'
import { verifyAdaptiveMfa } from '../../features/account-actions/verify-mfa'
import { codeSchema, parseLinkQuery } from '../../features/mfa/link-params'
import { LINK_ERRORS } from '../../features/mfa/links'
import { authFail, getFingerPrint, rejectXss, sendTokens, validationFields } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { actorOf } from '../../http/link-submission'
import { getClientIp, getJsonBody } from '../../http/request'
import { failAction } from '../../http/account-action-outcomes'

const bodySchema = z.object({ code: codeSchema })

/**
 * POST /auth/verify-mfa (link in the query, `{ code }`): 200 new tokens and session cookie;
 * 400 malformed input, bad/used/expired link or purpose/subject mismatch; 401 wrong or expired
 * code; 403 banned device or XSS; 429; 500.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const params = parseLinkQuery(getQuery(event))
  if (!params) return authFail(400, LINK_ERRORS.invalid)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await getFingerPrint(event)
  await rejectXss(event, raw)
  const parsed = bodySchema.safeParse(raw)
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  await enforceRateLimit(ctx, 'codes', { ip: ipAddress, on: 'ip' })
  const visitor = event.context.visitor
  const result = await verifyAdaptiveMfa(ctx, {
    params,
    code: parsed.data.code,
    actor: { ...actorOf(event, visitor?.id ?? null), visitorPublicId: visitor?.visitor_id ?? null },
  })
  if (!result.ok) return failAction(result)
  return sendTokens(event, ctx, result.pair, 200)
})
