/** POST /api/tokens/privilege `{ tokenId, publicIdentifier, name, newPrivilege }` -> IAM POST /api/manage/privilege-update. */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'privilegeUpdate')
  const res = await callAuthedRoute(event, 'privilegeUpdate', { body })
  return relay(event, res)
})
