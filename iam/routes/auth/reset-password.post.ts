import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { resetPassword } from '../../features/account-actions/password-reset'
import { getFingerPrint, rejectXss } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { actorOf, readLinkQuery } from '../../http/link-submission'
import { getClientIp, getJsonBody } from '../../http/request'
import { okEnvelope, withWarnings } from '../../http/respond'
import { readRouteInput } from '../../http/route-input'
import { failAction } from '../../http/account-action-outcomes'

/**
 * POST /auth/reset-password (PASSWORD_RESET link in the query, `{ password, confirmedPassword,
 * revokeApiTokens? }`): 200 password replaced, every session (and with revokeApiTokens every API
 * token) revoked, notice mailed; 400 validation, mismatch, breached
 * password or bad link; 403 XSS (device banned) or banned device; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  await enforceRateLimit(ctx, 'codes', { ip: ipAddress, on: 'reset' })
  const params = readLinkQuery(event, ROUTES.resetPassword)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await getFingerPrint(event)
  // passwords are never rendered: only the other fields are checked for markup (as login does)
  const { password: _p, confirmedPassword: _c, ...freeText } = raw
  await rejectXss(event, freeText)
  const body = readRouteInput(event, ROUTES.resetPassword, 'body')
  const result = await resetPassword(ctx, {
    params,
    password: body.password,
    confirmedPassword: body.confirmedPassword,
    revokeApiTokens: body.revokeApiTokens === true,
    actor: actorOf(event, event.context.visitor?.id ?? null),
  })
  if (!result.ok) return failAction(result)
  return withWarnings(okEnvelope({ message: 'Your password has been changed. Sign in with the new password.' }), result.warnings)
})
