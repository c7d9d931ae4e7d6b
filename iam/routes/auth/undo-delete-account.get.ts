import { ROUTES } from '../../contract/routes'
import { previewUndoDeletionLink } from '../../features/account-deletion/undo-deletion'
import { failUndoExpired, LINK_REFUSED } from '../../http/account-deletion-outcomes'
import { invalidLink } from '../../http/link-submission'
import { okEnvelope } from '../../http/respond'
import { answerFailure, defineRoute, limit, query } from '../../http/route'

/** GET /auth/undo-delete-account: 200 `{ link: "Undo Account Deletion", reason }`; 400 a bad or used link; 410 the undo window has passed. */
export default defineRoute(ROUTES.undoDeleteAccountLink, [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query(invalidLink)], async ({ ctx, query }) => {
  const result = await previewUndoDeletionLink(ctx, query)
  if (!result.ok) return answerFailure({ ...LINK_REFUSED, undo_expired: failUndoExpired }, result)
  return okEnvelope({ link: 'Undo Account Deletion', reason: result.reason })
})
