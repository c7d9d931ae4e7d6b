import { verifyEmail } from '../../features/account-actions/verify-email'
import { ROUTES } from '../../contract/routes'
import { completeAnonymousLink } from '../../http/link-preview'
import { invalidLink } from '../../http/link-submission'
import { defineRoute, device, limit, query } from '../../http/route'

/**
 * POST /auth/verify-email (EMAIL_VERIFICATION link in the query, no body, no session: the link is
 * bound to the user id): 200 address verified; 400 bad, used or expired link, or the account's
 * address is no longer the one the link was sent to; 429.
 */
export default defineRoute(ROUTES.verifyEmail, [limit('codes', ({ ip }) => ({ ip, on: 'verify' })), query(invalidLink), device], ({ ctx, query, actor }) =>
  completeAnonymousLink(ctx, { params: query, actor }, verifyEmail, 'Your email address is verified.'),
)
