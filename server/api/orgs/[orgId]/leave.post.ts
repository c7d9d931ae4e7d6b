/** POST /api/orgs/:orgId/leave -> IAM POST /orgs/:orgId/leave: `{ data: { left } }`; 409 the last owner. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgLeave', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgLeave', { params }))
})
