/** GET /api/orgs/:orgId/scim/events -> IAM GET /orgs/:orgId/scim/events (owners): `{ data: { events } }`. */
import { readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'scimEvents', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'scimEvents', { params }))
})
