/** POST /api/tokens/revoke `{ tokenId, publicIdentifier, name }` -> IAM POST /api/manage/revoke. */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'revokeToken')
  const res = await callAuthedRoute(event, 'revokeToken', { body })
  return relay(event, res)
})
