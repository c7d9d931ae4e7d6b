/** POST /api/tokens/metadata `{ tokenId, publicIdentifier, name }` -> IAM POST /api/manage/metadata. */
import { z } from 'zod'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthed } from '../../utils/bff/session'
import { tokenIdentity } from '../../utils/bff/token-input'

const bodySchema = z.object(tokenIdentity)

export default defineBffHandler(async (event) => {
  const body = await readInput(event, bodySchema)
  const res = await callAuthed(event, { method: 'POST', path: '/api/manage/metadata', body })
  return relay(event, res)
})
