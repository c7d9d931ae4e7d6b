/** GET /api/tokens -> IAM GET /api/manage/list-metadata: `{ ok, date, data: { total, totalInvalidTokens, totalValidTokens, tokenList? } }`. */
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthedRoute(event, 'listTokenMetadata', {})
  return relay(event, res)
})
