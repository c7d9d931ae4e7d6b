import { ROUTES } from '../../contract/routes'
import { previewCustomLink } from '../../features/mfa/custom'
import { failAction } from '../../http/account-action-outcomes'
import { invalidLink } from '../../http/link-submission'
import { okEnvelope } from '../../http/respond'
import { defineRoute, limit, query } from '../../http/route'

/**
 * GET /auth/verify-custom-mfa (full authentication): 200 `{ ok, date, data: { link: "Custom MFA",
 * reason, expiresAt, note? } }` for a live link of this session; 400 `{ error }` otherwise.
 */
export default defineRoute(ROUTES.verifyCustomMfaLink, [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query(invalidLink)], async ({ ctx, user, query }) => {
  const result = await previewCustomLink(ctx, query, user)
  if (!result.ok) return failAction(result)
  const { ok: _ok, ...data } = result
  return okEnvelope({ link: 'Custom MFA', ...data })
})
