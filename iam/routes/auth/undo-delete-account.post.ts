import { ROUTES } from '../../contract/routes'
import { undoAccountDeletion } from '../../features/account-deletion/undo-deletion'
import { failUndoExpired, LINK_REFUSED } from '../../http/account-deletion-outcomes'
import { invalidLink } from '../../http/link-submission'
import { okEnvelope } from '../../http/respond'
import { answerFailure, defineRoute, device, limit, query } from '../../http/route'

/**
 * POST /auth/undo-delete-account (UNDO_DELETE_ACCOUNT link in the query, no body, no session):
 * 200 the account is restored and signs in again; 400 bad or used link; 410 the undo window has
 * passed; 429.
 */
export default defineRoute(ROUTES.undoDeleteAccount, [limit('codes', ({ ip }) => ({ ip, on: 'undo' })), query(invalidLink), device], async ({ ctx, query, actor }) => {
  const result = await undoAccountDeletion(ctx, { params: query, actor })
  if (!result.ok) return answerFailure({ ...LINK_REFUSED, undo_expired: failUndoExpired }, result)
  return okEnvelope({ message: 'Your account is restored and will not be erased. Sign in again: earlier sessions and API tokens stay ended.' })
})
