import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { previewResetLink } from '../../features/account-actions/password-reset'
import { getConfiguredLimiters } from '../../features/rate-limits/configured-limiters'
import { authFail } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { limiterIpKey } from '../../lib/ip'
import { readLinkQuery } from '../../http/link-submission'

/** GET /auth/reset-password: 200 `{ ok, date, data: { link: "Password Reset", reason } }`; 400 `{ error }`. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(getConfiguredLimiters(ctx.store, ctx.config).auth.links, `preview_${limiterIpKey(getClientIp(event))}`)
  const params = readLinkQuery(event, ROUTES.resetPasswordLink)
  const result = await previewResetLink(ctx, params)
  if (!result.ok) return authFail(result.status, result.error)
  return okEnvelope({ link: 'Password Reset', reason: result.reason })
})
