import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { verifyEmail } from '../../features/account-actions/verify-email'
import { getFingerPrint } from '../../http/auth'
import { actorOf, readLinkQuery } from '../../http/link-submission'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { failAction } from '../../http/account-action-outcomes'

/**
 * POST /auth/verify-email (EMAIL_VERIFICATION link in the query, no body, no session: the link is
 * bound to the user id): 200 address verified; 400 bad, used or expired link, or the account's
 * address is no longer the one the link was sent to; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'codes', { ip: getClientIp(event), on: 'verify' })
  const params = readLinkQuery(event, ROUTES.verifyEmail)
  await getFingerPrint(event)
  const result = await verifyEmail(ctx, { params, actor: actorOf(event, event.context.visitor?.id ?? null) })
  if (!result.ok) return failAction(result)
  return okEnvelope({ message: 'Your email address is verified.' })
})
