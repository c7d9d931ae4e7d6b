/** POST /api/tokens/revoke-all `{ confirm: true }` -> IAM POST /api/manage/revoke-all (every token of the user). */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'revokeAllTokens')
  const res = await callAuthedRoute(event, 'revokeAllTokens', { body })
  return relay(event, res)
})
