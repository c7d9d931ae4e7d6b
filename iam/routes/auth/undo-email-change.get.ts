import { previewUndoLink } from '../../features/account-actions/undo-email-change'
import { ROUTES } from '../../contract/routes'
import { answerLinkPreview } from '../../http/link-preview'
import { invalidLink } from '../../http/link-submission'
import { defineRoute, limit, query } from '../../http/route'

/** GET /auth/undo-email-change: 200 `{ ok, date, data: { link: "Undo Email Change", reason } }`; 400 `{ error }`. */
export default defineRoute(ROUTES.undoEmailChangeLink, [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query(invalidLink)], ({ ctx, query }) =>
  answerLinkPreview(ctx, query, 'Undo Email Change', previewUndoLink),
)
