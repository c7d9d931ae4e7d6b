import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { undoEmailChange } from '../../features/account-actions/undo-email-change'
import { getFingerPrint } from '../../http/auth'
import { actorOf, readLinkQuery } from '../../http/link-submission'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { failAction } from '../../http/account-action-outcomes'

/**
 * POST /auth/undo-email-change (UNDO_EMAIL_CHANGE link in the query, no body, no session: the
 * link is bound to the user id): 200 the previous address is back, verified, and every session is
 * revoked; 400 bad, used or expired link; 409 the previous address now belongs to another account; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'codes', { ip: getClientIp(event), on: 'undo' })
  const params = readLinkQuery(event, ROUTES.undoEmailChange)
  await getFingerPrint(event)
  const result = await undoEmailChange(ctx, { params, actor: actorOf(event, event.context.visitor?.id ?? null) })
  if (!result.ok) return failAction(result)
  return okEnvelope({ message: 'Your previous email address is back and every session was signed out. Sign in again.' })
})
