/** GET /api/admin/orgs/:orgId -> IAM GET /admin/orgs/:orgId: the organization, its members, roles and invitations (platform administrators). */
import { readIamParams } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'adminOrg', 'This is not an organization id.')
  return relay(event, await callAuthedRoute(event, 'adminOrg', { params }))
})
