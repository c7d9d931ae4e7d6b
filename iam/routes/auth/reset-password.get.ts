import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { previewResetLink } from '../../features/account-actions/password-reset'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { readLinkQuery } from '../../http/link-submission'
import { failAction } from '../../http/account-action-outcomes'

/** GET /auth/reset-password: 200 `{ ok, date, data: { link: "Password Reset", reason } }`; 400 `{ error }`. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'links', { ip: getClientIp(event), on: 'preview' })
  const params = readLinkQuery(event, ROUTES.resetPasswordLink)
  const result = await previewResetLink(ctx, params)
  if (!result.ok) return failAction(result)
  return okEnvelope({ link: 'Password Reset', reason: result.reason })
})
