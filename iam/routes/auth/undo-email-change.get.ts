import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { previewUndoLink } from '../../features/account-actions/undo-email-change'
import { enforceRateLimit } from '../../http/rate-limit'
import { getClientIp } from '../../http/request'
import { okEnvelope } from '../../http/respond'
import { readLinkQuery } from '../../http/link-submission'
import { failAction } from '../../http/account-action-outcomes'

/** GET /auth/undo-email-change: 200 `{ ok, date, data: { link: "Undo Email Change", reason } }`; 400 `{ error }`. */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  await enforceRateLimit(ctx, 'links', { ip: getClientIp(event), on: 'preview' })
  const params = readLinkQuery(event, ROUTES.undoEmailChangeLink)
  const result = await previewUndoLink(ctx, params)
  if (!result.ok) return failAction(result)
  return okEnvelope({ link: 'Undo Email Change', reason: result.reason })
})
