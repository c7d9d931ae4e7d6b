/** POST /api/tokens/rotate `{ tokenId, publicIdentifier, name }` -> IAM POST /api/manage/rotate. */
import { z } from 'zod'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'
import { tokenIdentity } from '../../utils/bff/token-input'

const bodySchema = z.object(tokenIdentity)

export default defineBffHandler(async (event) => {
  const body = await readInput(event, bodySchema)
  const res = await callAuthedRoute(event, 'rotateToken', { body })
  return relay(event, res)
})
