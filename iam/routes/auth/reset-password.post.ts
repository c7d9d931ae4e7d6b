import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { resetPassword } from '../../features/account-actions/password-reset'
import { getConfiguredLimiters } from '../../features/rate-limits/configured-limiters'
import { authFail, getFingerPrint, rejectXss } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { actorOf, readLinkQuery } from '../../http/link-submission'
import { getClientIp, getJsonBody } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { limiterIpKey } from '../../lib/ip'
import { readRouteInput } from '../../http/route-input'

/**
 * POST /auth/reset-password (PASSWORD_RESET link in the query, `{ password, confirmedPassword,
 * revokeApiTokens? }`): 200 password replaced, every session (and with revokeApiTokens every API
 * token) revoked, notice mailed; 400 validation, mismatch, breached
 * password or bad link; 403 XSS (device banned) or banned device; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  await enforceRateLimit(getConfiguredLimiters(ctx.store, ctx.config).auth.codes, `reset_${limiterIpKey(ipAddress)}`)
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
  if (!result.ok) return authFail(result.status, result.error, result.fields ? { fields: result.fields } : {})
  return okEnvelope({ message: 'Your password has been changed. Sign in with the new password.' })
})
