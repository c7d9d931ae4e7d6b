import { ROUTES } from '../../../contract/routes'
import { previewDeletionLink } from '../../../features/account-deletion/confirm-deletion'
import { LINK_REFUSED } from '../../../http/account-deletion-outcomes'
import { invalidLink } from '../../../http/link-submission'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute, limit, query } from '../../../http/route'

/** GET /auth/delete-account/confirm: 200 `{ link: "Delete Account", reason }`; 400 a bad, used or expired link. */
export default defineRoute(ROUTES.deleteAccountLink, [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query(invalidLink)], async ({ ctx, query }) => {
  const result = await previewDeletionLink(ctx, query)
  if (!result.ok) return answerFailure(LINK_REFUSED, result)
  return okEnvelope({ link: 'Delete Account', reason: result.reason })
})
