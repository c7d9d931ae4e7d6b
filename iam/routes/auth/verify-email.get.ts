import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { previewVerificationLink } from '../../features/account-actions/verify-email'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { readLinkQuery } from '../../http/link-submission'
import { failAction } from '../../http/account-action-outcomes'

/** GET /auth/verify-email: 200 `{ ok, date, data: { link: "Email Verification", reason } }`; 400 `{ error }`. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'links', { ip: getClientIp(event), on: 'preview' })
  const params = readLinkQuery(event, ROUTES.verifyEmailLink)
  const result = await previewVerificationLink(ctx, params)
  if (!result.ok) return failAction(result)
  return okEnvelope({ link: 'Email Verification', reason: result.reason })
})
