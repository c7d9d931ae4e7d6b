/** GET /api/orgs/:orgId/roles -> IAM GET /orgs/:orgId/roles (roles:read): `{ data: { roles } }`. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgRoles', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgRoles', { params }))
})
