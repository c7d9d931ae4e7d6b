import { defineEventHandler, getQuery } from 'h3'
import { z } from 'zod'
import { useIam } from '../../context'
import { changeEmail } from '../../features/account-actions/email-change'
import { codeSchema, parseLinkQuery } from '../../features/mfa/link-params'
import { LINK_ERRORS } from '../../features/mfa/links'
import { getConfiguredLimiters } from '../../features/rate-limits/configured-limiters'
import { authFail, fullAuthentication, rejectXss, sendTokens, validationFields } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp, getJsonBody } from '../../http/request'

const bodySchema = z.object({
  code: codeSchema,
  newEmail: z.string({ error: 'The new email is required' }).trim().min(3, 'The new email is required').max(254),
})

/**
 * POST /update/email (full authentication, change_email link in the query, `{ code, newEmail }`):
 * 200 updated, new tokens for this session, every other session revoked; 400 validation, bad link
 * or address in use; 401 wrong or expired code; 403 banned or XSS; 429; 500.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  const ipAddress = getClientIp(event)
  const params = parseLinkQuery(getQuery(event))
  if (!params) return authFail(400, LINK_ERRORS.invalid)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await rejectXss(event, raw)
  const parsed = bodySchema.safeParse(raw)
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  await enforceRateLimit(getConfiguredLimiters(ctx.store, ctx.config).auth.codes, `ip_${ipAddress}`)
  const result = await changeEmail(ctx, {
    params,
    code: parsed.data.code,
    newEmail: parsed.data.newEmail,
    user,
    actor: { visitorRowId: user.visitorRowId, ipAddress, fingerprint: event.context.fingerPrint ? { ...event.context.fingerPrint } : null },
  })
  if (!result.ok) return authFail(result.status, result.error, result.fields ? { fields: result.fields } : {})
  return sendTokens(event, ctx, result.pair, 200)
})
