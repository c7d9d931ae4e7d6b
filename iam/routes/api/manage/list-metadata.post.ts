import { ROUTES } from '../../../contract/routes'
import { renderWrongMethod } from '../../../http/api-token-outcomes'
import { unionForListing } from '../../../http/api-token-steps'
import { defineRoute } from '../../../http/route'

/** POST /api/manage/list-metadata: the listing is GET; a POST is answered 400 `Bad Request` by the controller, after its limiter. */
export default defineRoute(ROUTES.listTokenMetadataPost, [unionForListing], ({ event, ctx }) => renderWrongMethod(event, new Date(ctx.now()).toISOString()))
