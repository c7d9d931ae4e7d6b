/** POST /api/tokens/rotate `{ tokenId, publicIdentifier, name }` -> IAM POST /api/manage/rotate. */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'rotateToken')
  const res = await callAuthedRoute(event, 'rotateToken', { body })
  return relay(event, res)
})
