/** POST /api/tokens/ip-restriction `{ tokenId, publicIdentifier, name, ipv4? }` -> IAM POST /api/manage/ip-restriction-update (empty list = any host). */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'ipRestrictionUpdate')
  const res = await callAuthedRoute(event, 'ipRestrictionUpdate', { body })
  return relay(event, res)
})
