import { previewResetLink } from '../../features/account-actions/password-reset'
import { ROUTES } from '../../contract/routes'
import { answerLinkPreview } from '../../http/link-preview'
import { invalidLink } from '../../http/link-submission'
import { defineRoute, limit, query } from '../../http/route'

/** GET /auth/reset-password: 200 `{ ok, date, data: { link: "Password Reset", reason } }`; 400 `{ error }`. */
export default defineRoute(ROUTES.resetPasswordLink, [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query(invalidLink)], ({ ctx, query }) =>
  answerLinkPreview(ctx, query, 'Password Reset', previewResetLink),
)
