import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { FORGOT_PASSWORD_BODY, requestPasswordReset } from '../../features/account-actions/password-reset'
import { getFingerPrint, rejectXss } from '../../http/auth'
import { throwTooManyRequests } from '../../http/rate-limit'
import { getClientIp, getJsonBody } from '../../http/request'
import { readRouteInput } from '../../http/route-input'

/**
 * POST /auth/forgot-password (no session): 200 with one fixed body whether or not the address has
 * an account; the lookup and the mail happen after the response. 400 malformed body; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const raw = getJsonBody<Record<string, unknown>>(event)
  await getFingerPrint(event)
  await rejectXss(event, raw)
  const { email } = readRouteInput(event, ROUTES.forgotPassword, 'body')
  const result = await requestPasswordReset(ctx, { email, ipAddress: getClientIp(event) })
  if (!result.ok) return throwTooManyRequests(result.decision)
  return FORGOT_PASSWORD_BODY
})
