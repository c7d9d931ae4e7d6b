import { ROUTES } from '../../../contract/routes'
import { apiTokenService } from '../../../features/api-tokens/api-token-service'
import { revokeAllTokens } from '../../../features/api-tokens/manage-actions'
import { renderManageOutcome } from '../../../http/api-token-outcomes'
import { caller, byUser, unionByIp } from '../../../http/api-token-steps'
import { body, defineRoute, limit } from '../../../http/route'

/**
 * POST /api/manage/revoke-all `{ confirm: true }`: 200 every valid token of the user revoked; 400 Bad Request; 500.
 * In this order (every management action alike): the general union limiter, the markup and schema
 * checks, the operation limiter; a refused body then spends no operation point.
 */
export default defineRoute(ROUTES.revokeAllTokens, [unionByIp, body(), limit('revokeAllLimiter', byUser)], async (req) => {
  const { event, ctx } = req
  return renderManageOutcome(event, 'revoke-all', await revokeAllTokens(apiTokenService(ctx), caller(req)))
})
