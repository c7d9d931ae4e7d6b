import { defineEventHandler, getQuery } from 'h3'
import { useIam } from '../../context'
import { previewMfaLink } from '../../features/account-actions/verify-mfa'
import { LINK_ERRORS } from '../../features/mfa/links'
import { parseLinkQuery } from '../../features/mfa/link-params'
import { authFail } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { failAction } from '../../http/account-action-outcomes'

/** GET /auth/verify-mfa: 200 `{ ok, date, data: { link: "MFA Code", reason } }`; 400 `{ error }`. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'links', { ip: getClientIp(event), on: 'preview' })
  const params = parseLinkQuery(getQuery(event))
  if (!params) return authFail(400, LINK_ERRORS.invalid)
  const result = await previewMfaLink(ctx, params)
  if (!result.ok) return failAction(result)
  return okEnvelope({ link: 'MFA Code', reason: result.reason })
})
