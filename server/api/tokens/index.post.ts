/**
 * POST /api/tokens `{ privilege, name, prefix?, expires?, ipv4? }` -> IAM POST /api/manage/new-token.
 * 201 `{ ok, date, data: { rawApiKey, rawPublicId, expiresAt } }`: the raw API token is returned to
 * the page exactly once (the user must copy it); it is the user's credential, not a session token.
 */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'newToken')
  const res = await callAuthedRoute(event, 'newToken', { body })
  return relay(event, res)
})
