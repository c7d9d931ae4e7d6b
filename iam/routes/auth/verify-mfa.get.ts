import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { previewMfaLink } from '../../features/account-actions/verify-mfa'
import { getConfiguredLimiters } from '../../features/rate-limits/configured-limiters'
import { authFail } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { limiterIpKey } from '../../lib/ip'
import { readLinkQuery } from '../../http/link-submission'

/** GET /auth/verify-mfa: 200 `{ ok, date, data: { link: "MFA Code", reason } }`; 400 `{ error }`. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(getConfiguredLimiters(ctx.store, ctx.config).auth.links, `preview_${limiterIpKey(getClientIp(event))}`)
  const params = readLinkQuery(event, ROUTES.verifyMfaLink)
  const result = await previewMfaLink(ctx, params)
  if (!result.ok) return authFail(result.status, result.error)
  return okEnvelope({ link: 'MFA Code', reason: result.reason })
})
