import { ROUTES } from '../../../contract/routes'
import { apiTokenService } from '../../../features/api-tokens/api-token-service'
import { createToken } from '../../../features/api-tokens/manage-actions'
import { renderManageOutcome } from '../../../http/api-token-outcomes'
import { caller, byUser, unionByIp } from '../../../http/api-token-steps'
import { body, defineRoute, limit } from '../../../http/route'

/**
 * POST /api/manage/new-token `{ privilege, name, prefix?, expires?, ipv4? }`: 201 the raw key, shown once; 400 Bad Request or a refused creation; 500.
 * In this order (every management action alike): the general union limiter, the markup and schema
 * checks, the operation limiter; a refused body then spends no operation point.
 */
export default defineRoute(ROUTES.newToken, [unionByIp, body(), limit('newTokenCreationLimiter', byUser)], async (req) => {
  const { event, ctx, body } = req
  return renderManageOutcome(event, 'new-token', await createToken(apiTokenService(ctx), caller(req), body))
})
