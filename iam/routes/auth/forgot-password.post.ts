import { defineEventHandler } from 'h3'
import { z } from 'zod'
import { useIam } from '../../context'
import { FORGOT_PASSWORD_BODY, requestPasswordReset } from '../../features/account-actions/password-reset'
import { authFail, getFingerPrint, rejectXss, validationFields } from '../../http/auth'
import { throwTooManyRequests } from '../../http/rate-limit'
import { getClientIp, getJsonBody } from '../../http/request'
import { safeString } from '../../lib/text'

const bodySchema = z.object({ email: safeString({ error: 'Email is required' }).trim().min(3, 'Email is required').max(254) })

/**
 * POST /auth/forgot-password (no session): 200 with one fixed body whether or not the address has
 * an account; the lookup and the mail happen after the response. 400 malformed body; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const raw = getJsonBody<Record<string, unknown>>(event)
  await getFingerPrint(event)
  await rejectXss(event, raw)
  const parsed = bodySchema.safeParse(raw)
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  const result = await requestPasswordReset(ctx, { email: parsed.data.email, ipAddress: getClientIp(event) })
  if (!result.ok) return throwTooManyRequests(result.decision)
  return FORGOT_PASSWORD_BODY
})
