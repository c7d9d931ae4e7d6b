import { defineEventHandler, getQuery } from 'h3'
import { z } from 'zod'
import { useIam } from '../../context'
import { resetPassword } from '../../features/account-actions/password-reset'
import { parseLinkQuery } from '../../features/mfa/link-params'
import { LINK_ERRORS } from '../../features/mfa/links'
import { authFail, getFingerPrint, rejectXss, validationFields } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { actorOf } from '../../http/link-submission'
import { getClientIp, getJsonBody } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { safeString } from '../../lib/text'
import { failAction } from '../../http/account-action-outcomes'

const bodySchema = z.object({
  password: safeString({ error: 'Password is required' }).min(1, 'Password is required').max(1024),
  confirmedPassword: safeString({ error: 'Confirm the password' }).min(1, 'Confirm the password').max(1024),
  // issue 11, 4.4: also end every API token of the account (the reset page offers it, checked)
  revokeApiTokens: z.boolean({ error: 'revokeApiTokens is true or false' }).optional(),
})

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
  const params = parseLinkQuery(getQuery(event))
  if (!params) return authFail(400, LINK_ERRORS.invalid)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await getFingerPrint(event)
  // passwords are never rendered: only the other fields are checked for markup (as login does)
  const { password: _p, confirmedPassword: _c, ...freeText } = raw
  await rejectXss(event, freeText)
  const parsed = bodySchema.safeParse(raw)
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  const result = await resetPassword(ctx, {
    params,
    password: parsed.data.password,
    confirmedPassword: parsed.data.confirmedPassword,
    revokeApiTokens: parsed.data.revokeApiTokens === true,
    actor: actorOf(event, event.context.visitor?.id ?? null),
  })
  if (!result.ok) return failAction(result)
  return okEnvelope({ message: 'Your password has been changed. Sign in with the new password.' })
})
