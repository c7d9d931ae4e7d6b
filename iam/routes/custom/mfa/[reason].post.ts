import { defineEventHandler } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { useIam } from '../../../context'
import { startCustomMfa } from '../../../features/second-factors/step-up/custom-mfa'
import { authFail, fullAuthentication, rejectXss } from '../../../http/auth'
import { getClientIp, getJsonBody } from '../../../http/request'
import { readRouteInput } from '../../../http/route-input'
import { okEnvelope } from '../../../http/respond'
import { failAction } from '../../../http/account-action-outcomes'
import { requireRecentSignIn } from '../../../http/reauthenticate'
import { CHANGE_EMAIL_REASON } from '../../../features/mfa/purposes'

const invalidReason = (): never => authFail(400, 'Invalid reason', { fields: { reason: 'Expected 3-64 of A-Z, 0-9 and _, not a reserved name' } })

/**
 * POST /custom/mfa/:reason (full authentication): mails a link and code for the action `reason`.
 * 200 `{ ok, date, data: { reason, expiresAt, sentTo } }`; 400 bad reason or body; 401; 403; 429; 500.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  // the params schema refuses reserved names too (contract/inputs.ts isCustomReason)
  const { reason } = readRouteInput(event, ROUTES.customMfa, 'params', invalidReason)
  // an email change moves where recovery mail goes: it needs a recent sign-in proof
  if (reason === CHANGE_EMAIL_REASON) requireRecentSignIn(event)
  const raw = getJsonBody<Record<string, unknown>>(event)
  await rejectXss(event, raw)
  const { note } = readRouteInput(event, ROUTES.customMfa, 'body')
  const ipAddress = getClientIp(event)
  const result = await startCustomMfa(ctx, { user, reason, note: note || undefined, ipAddress })
  if (!result.ok) return failAction(result)
  return okEnvelope({ reason: result.reason, expiresAt: result.expiresAt, sentTo: result.sentTo })
})
