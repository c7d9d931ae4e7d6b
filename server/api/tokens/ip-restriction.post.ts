/** POST /api/tokens/ip-restriction `{ tokenId, publicIdentifier, name, ipv4? }` -> IAM POST /api/manage/ip-restriction-update (empty list = any host). */
import { z } from 'zod'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'
import { tokenIdentity } from '../../utils/bff/token-input'

const bodySchema = z.object({ ...tokenIdentity, ipv4: z.array(z.string().max(64)).max(50).optional() })

export default defineBffHandler(async (event) => {
  const body = await readInput(event, bodySchema)
  const res = await callAuthedRoute(event, 'ipRestrictionUpdate', { body })
  return relay(event, res)
})
