import { defineEventHandler, getQuery } from 'h3'
import { useIam } from '../../context'
import { previewCustomLink } from '../../features/account-actions/custom-mfa'
import { parseLinkQuery } from '../../features/mfa/link-params'
import { LINK_ERRORS } from '../../features/mfa/links'
import { authFail, fullAuthentication } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { failAction } from '../../http/account-action-outcomes'

/**
 * GET /auth/verify-custom-mfa (full authentication): 200 `{ ok, date, data: { link: "Custom MFA",
 * reason, expiresAt, note? } }` for a live link of this session; 400 `{ error }` otherwise.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  await enforceRateLimit(ctx, 'links', { ip: getClientIp(event), on: 'preview' })
  const params = parseLinkQuery(getQuery(event))
  if (!params) return authFail(400, LINK_ERRORS.invalid)
  const result = await previewCustomLink(ctx, params, user)
  if (!result.ok) return failAction(result)
  const { ok: _ok, ...data } = result
  return okEnvelope({ link: 'Custom MFA', ...data })
})
