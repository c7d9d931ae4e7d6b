/**
 * POST /api/manage/:action (spec "API token management"): new-token, revoke, metadata, rotate,
 * ip-restriction-update, privilege-update, revoke-all (issue 11); POST list-metadata answers 400 Bad Request; any other
 * action 404. Full authentication first, then the controller (features/api-tokens/manage-actions.ts).
 */
import { defineEventHandler, getRouterParam } from 'h3'
import { useIam } from '../../../context'
import { isManageAction, runManageAction } from '../../../features/api-tokens/manage-actions'
import { apiTokenService } from '../../../features/api-tokens/api-token-service'
import { renderManageOutcome } from '../../../http/api-token-outcomes'
import { fullAuthentication } from '../../../http/auth'
import { getClientIp, getJsonBody } from '../../../http/request'
import { notFound } from '../../../http/respond'

export default defineEventHandler(async (event) => {
  const action = getRouterParam(event, 'action')
  if (!isManageAction(action)) return notFound()
  const user = await fullAuthentication(event)
  const ctx = useIam()
  const body = getJsonBody(event)
  const outcome = await runManageAction(
    apiTokenService(ctx),
    { action, method: 'POST', ip: getClientIp(event), userId: user.userId, body, visitorRowId: user.visitorRowId },
    ctx.now,
  )
  return renderManageOutcome(event, action, outcome, body)
})
