/** POST /api/tokens/revoke-all `{ confirm: true }` -> IAM POST /api/manage/revoke-all (every token of the user). */
import { z } from 'zod'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

const bodySchema = z.strictObject({ confirm: z.literal(true, 'Confirm that every token should be revoked') })

export default defineBffHandler(async (event) => {
  const body = await readInput(event, bodySchema)
  const res = await callAuthedRoute(event, 'revokeAllTokens', { body })
  return relay(event, res)
})
