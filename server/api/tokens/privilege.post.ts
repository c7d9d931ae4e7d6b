/** POST /api/tokens/privilege `{ tokenId, publicIdentifier, name, newPrivilege }` -> IAM POST /api/manage/privilege-update. */
import { z } from 'zod'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthed } from '../../utils/bff/session'
import { privilegeSchema, tokenIdentity } from '../../utils/bff/token-input'

const bodySchema = z.object({ ...tokenIdentity, newPrivilege: privilegeSchema })

export default defineBffHandler(async (event) => {
  const body = await readInput(event, bodySchema)
  const res = await callAuthed(event, { method: 'POST', path: '/api/manage/privilege-update', body })
  return relay(event, res)
})
