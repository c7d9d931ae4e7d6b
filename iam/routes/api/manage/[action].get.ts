/**
 * GET /api/manage/list-metadata (spec "API token management"): the user's token listing, after
 * full authentication; general union limiter under `<IP>_list-metadata`, nothing reset. It is the
 * only GET action: any other answers 404. (A dynamic segment, not a static list-metadata.get.ts:
 * a static path would shadow POST /api/manage/list-metadata, which must answer 400 Bad Request.)
 */
import { defineEventHandler, getRouterParam } from 'h3'
import { useIam } from '../../../context'
import { runManageAction } from '../../../features/api-tokens/manage-actions'
import { apiTokenService } from '../../../features/api-tokens/api-token-service'
import { renderManageOutcome } from '../../../http/api-token-outcomes'
import { fullAuthentication } from '../../../http/auth'
import { getClientIp } from '../../../http/request'
import { notFound } from '../../../http/respond'

export default defineEventHandler(async (event) => {
  if (getRouterParam(event, 'action') !== 'list-metadata') return notFound()
  const user = await fullAuthentication(event)
  const ctx = useIam()
  const outcome = await runManageAction(
    apiTokenService(ctx),
    { action: 'list-metadata', method: 'GET', ip: getClientIp(event), userId: user.userId, body: undefined },
    ctx.now,
  )
  return renderManageOutcome(event, 'list-metadata', outcome, undefined)
})
