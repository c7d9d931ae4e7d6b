import { defineEventHandler, getRouterParam } from 'h3'
import { z } from 'zod'
import { useIam } from '../../../context'
import { startCustomMfa } from '../../../features/account-actions/custom-mfa'
import { isCustomReason } from '../../../features/mfa/purposes'
import { authFail, fullAuthentication, rejectXss, validationFields } from '../../../http/auth'
import { getClientIp, getJsonBody } from '../../../http/request'
import { okEnvelope } from '../../../http/respond'
import { safeString } from '../../../lib/text'
import { failAction } from '../../../http/account-action-outcomes'

const bodySchema = z.strictObject({ note: safeString().trim().max(200, 'The note has at most 200 characters').optional() })

/**
 * POST /custom/mfa/:reason (full authentication): mails a link and code for the action `reason`.
 * 200 `{ ok, date, data: { reason, expiresAt, sentTo } }`; 400 bad reason or body; 401; 403; 429; 500.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  const reason = getRouterParam(event, 'reason', { decode: true }) ?? ''
  if (!isCustomReason(reason)) return authFail(400, 'Invalid reason', { fields: { reason: 'Expected 3-64 of A-Z, 0-9 and _, not a reserved name' } })
  const raw = getJsonBody<Record<string, unknown>>(event)
  await rejectXss(event, raw)
  const parsed = bodySchema.safeParse(raw)
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  const ipAddress = getClientIp(event)
  const result = await startCustomMfa(ctx, { user, reason, note: parsed.data.note || undefined, ipAddress })
  if (!result.ok) return failAction(result)
  return okEnvelope({ reason: result.reason, expiresAt: result.expiresAt, sentTo: result.sentTo })
})
