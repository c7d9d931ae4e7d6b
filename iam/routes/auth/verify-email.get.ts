import { previewVerificationLink } from '../../features/account-actions/verify-email'
import { ROUTES } from '../../contract/routes'
import { answerLinkPreview } from '../../http/link-preview'
import { invalidLink } from '../../http/link-submission'
import { defineRoute, limit, query } from '../../http/route'

/** GET /auth/verify-email: 200 `{ ok, date, data: { link: "Email Verification", reason } }`; 400 `{ error }`. */
export default defineRoute(ROUTES.verifyEmailLink, [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query(invalidLink)], ({ ctx, query }) =>
  answerLinkPreview(ctx, query, 'Email Verification', previewVerificationLink),
)
