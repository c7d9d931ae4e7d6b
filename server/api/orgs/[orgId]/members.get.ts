/** GET /api/orgs/:orgId/members -> IAM GET /orgs/:orgId/members (members:read): `{ data: { members } }`. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgMembers', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgMembers', { params }))
})
