import { previewMfaLink } from '../../features/mfa/verify-adaptive'
import { ROUTES } from '../../contract/routes'
import { answerLinkPreview } from '../../http/link-preview'
import { invalidLink } from '../../http/link-submission'
import { defineRoute, limit, query } from '../../http/route'

/** GET /auth/verify-mfa: 200 `{ ok, date, data: { link: "MFA Code", reason } }`; 400 `{ error }`. */
export default defineRoute(ROUTES.verifyMfaLink, [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query(invalidLink)], ({ ctx, query }) =>
  answerLinkPreview(ctx, query, 'MFA Code', previewMfaLink),
)
