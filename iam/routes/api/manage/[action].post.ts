/**
 * POST /api/manage/:action (spec "API token management"): new-token, revoke, metadata, rotate,
 * ip-restriction-update, privilege-update, revoke-all (issue 11); POST list-metadata answers 400 Bad Request; any other
 * action 404. Full authentication first, then the controller (features/api-tokens/manage.ts).
 */
import { defineEventHandler, getRouterParam, setResponseStatus } from 'h3'
import { useIam } from '../../../context'
import { isManageAction, runManageAction } from '../../../features/api-tokens/manage'
import { apiTokenService } from '../../../features/api-tokens/service'
import { fullAuthentication, rejectXss } from '../../../http/auth'
import { throwTooManyRequests } from '../../../http/rate-limit'
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
  if (outcome.kind === 'limited') return throwTooManyRequests(outcome.decision)
  if (outcome.kind === 'xss') {
    await rejectXss(event, body)
    throw new Error('rejectXss returned for a body the controller found to be XSS')
  }
  setResponseStatus(event, outcome.status)
  return outcome.body
})
