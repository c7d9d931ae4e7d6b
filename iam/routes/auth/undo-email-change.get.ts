import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { previewUndoLink } from '../../features/account-actions/undo-email-change'
import { answerLinkPreview } from '../../http/link-preview'

/** GET /auth/undo-email-change: 200 `{ ok, date, data: { link: "Undo Email Change", reason } }`; 400 `{ error }`. */
export default defineEventHandler((event) => answerLinkPreview(event, ROUTES.undoEmailChangeLink, 'Undo Email Change', previewUndoLink))
