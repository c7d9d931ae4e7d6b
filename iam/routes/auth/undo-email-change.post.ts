import { undoEmailChange } from '../../features/account-actions/undo-email-change'
import { ROUTES } from '../../contract/routes'
import { completeAnonymousLink } from '../../http/link-preview'
import { invalidLink } from '../../http/link-submission'
import { defineRoute, device, limit, query } from '../../http/route'

/**
 * POST /auth/undo-email-change (UNDO_EMAIL_CHANGE link in the query, no body, no session: the
 * link is bound to the user id): 200 the previous address is back, verified, and every session is
 * revoked; 400 bad, used or expired link; 409 the previous address now belongs to another account; 429.
 */
export default defineRoute(ROUTES.undoEmailChange, [limit('codes', ({ ip }) => ({ ip, on: 'undo' })), query(invalidLink), device], ({ ctx, query, actor }) =>
  completeAnonymousLink(ctx, { params: query, actor }, undoEmailChange, 'Your previous email address is back and every session was signed out. Sign in again.'),
)
