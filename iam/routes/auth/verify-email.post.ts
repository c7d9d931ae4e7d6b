import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { verifyEmail } from '../../features/account-actions/verify-email'
import { completeAnonymousLink } from '../../http/link-preview'

/**
 * POST /auth/verify-email (EMAIL_VERIFICATION link in the query, no body, no session: the link is
 * bound to the user id): 200 address verified; 400 bad, used or expired link, or the account's
 * address is no longer the one the link was sent to; 429.
 */
export default defineEventHandler((event) =>
  completeAnonymousLink(event, ROUTES.verifyEmail, 'verify', verifyEmail, 'Your email address is verified.'),
)
