/** GET /api/orgs/:orgId (signed in) -> IAM GET /orgs/:orgId: `{ data: { org: { id, slug, name, createdAt, role, roleName, permissions } } }`; 404 alike for no such organization and not a member. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgGet', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgGet', { params }))
})
