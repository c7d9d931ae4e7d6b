import { ROUTES } from '../../../contract/routes'
import { apiTokenService } from '../../../features/api-tokens/api-token-service'
import { listTokens } from '../../../features/api-tokens/manage-actions'
import { renderManageOutcome } from '../../../http/api-token-outcomes'
import { unionForListing } from '../../../http/api-token-steps'
import { defineRoute } from '../../../http/route'

/** GET /api/manage/list-metadata: 200 the user's valid tokens (tokenList omitted when none); 500. Resets no limiter. */
export default defineRoute(ROUTES.listTokenMetadata, [unionForListing], async ({ event, ctx, user }) =>
  renderManageOutcome(event, 'list-metadata', await listTokens(apiTokenService(ctx), user.userId)),
)
