import { ROUTES } from '../../../contract/routes'
import { apiTokenService } from '../../../features/api-tokens/api-token-service'
import { runTokenAction } from '../../../features/api-tokens/manage-actions'
import { renderManageOutcome } from '../../../http/api-token-outcomes'
import { caller, byUser, unionByIp } from '../../../http/api-token-steps'
import { body, defineRoute, limit } from '../../../http/route'

/**
 * POST /api/manage/revoke (a token reference): 200; 400 Bad Request; the helper's refusal (401 for revoke and metadata, else 400).
 * In this order (every management action alike): the general union limiter, the markup and schema
 * checks, the operation limiter; a refused body then spends no operation point.
 */
export default defineRoute(ROUTES.revokeToken, [unionByIp, body(), limit('revokeTokensLimiter', byUser)], async (req) => {
  const { event, ctx, body } = req
  return renderManageOutcome(event, 'revoke', await runTokenAction(apiTokenService(ctx), caller(req), 'revoke', body))
})
