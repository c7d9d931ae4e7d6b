import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { previewCustomLink } from '../../features/second-factors/step-up/custom-mfa'
import { fullAuthentication } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { readLinkQuery } from '../../http/link-submission'
import { failAction } from '../../http/account-action-outcomes'

/**
 * GET /auth/verify-custom-mfa (full authentication): 200 `{ ok, date, data: { link: "Custom MFA",
 * reason, expiresAt, note? } }` for a live link of this session; 400 `{ error }` otherwise.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const user = await fullAuthentication(event)
  await enforceRateLimit(ctx, 'links', { ip: getClientIp(event), on: 'preview' })
  const params = readLinkQuery(event, ROUTES.verifyCustomMfaLink)
  const result = await previewCustomLink(ctx, params, user)
  if (!result.ok) return failAction(result)
  const { ok: _ok, ...data } = result
  return okEnvelope({ link: 'Custom MFA', ...data })
})
