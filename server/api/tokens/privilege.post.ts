/** POST /api/tokens/privilege `{ tokenId, publicIdentifier, name, newPrivilege }` -> IAM POST /api/manage/privilege-update. */
import { z } from 'zod'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'
import { privilegeSchema, tokenIdentity } from '../../utils/bff/token-input'

const bodySchema = z.object({ ...tokenIdentity, newPrivilege: privilegeSchema })

export default defineBffHandler(async (event) => {
  const body = await readInput(event, bodySchema)
  const res = await callAuthedRoute(event, 'privilegeUpdate', { body })
  return relay(event, res)
})
