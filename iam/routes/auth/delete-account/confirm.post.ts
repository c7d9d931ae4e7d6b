import { ROUTES } from '../../../contract/routes'
import { confirmAccountDeletion } from '../../../features/account-deletion/confirm-deletion'
import { LINK_REFUSED, lastOwner } from '../../../http/account-deletion-outcomes'
import { invalidLink } from '../../../http/link-submission'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute, device, limit, query } from '../../../http/route'

/**
 * POST /auth/delete-account/confirm (DELETE_ACCOUNT link in the query, no body, no session: the
 * link is bound to the user id): 200 the account is disabled and every credential ended; 400 bad,
 * used or expired link; 409 `last_owner` (an organization lost its other owner since); 429.
 */
export default defineRoute(ROUTES.confirmDeleteAccount, [limit('codes', ({ ip }) => ({ ip, on: 'undo' })), query(invalidLink), device], async ({ ctx, query, actor }) => {
  const result = await confirmAccountDeletion(ctx, { params: query, actor })
  if (!result.ok) return answerFailure({ ...LINK_REFUSED, last_owner: lastOwner }, result)
  const message = result.undoMailed
    ? 'Your account is disabled and every session was signed out. It will be erased on the date below; the link we mailed you restores it until then.'
    : 'Your account is disabled and every session was signed out. It will be erased on the date below. The mail with the undo link could not be sent: contact support to keep your account.'
  return okEnvelope({ message, dueAt: result.dueAt.toISOString(), undoMailed: result.undoMailed })
})
