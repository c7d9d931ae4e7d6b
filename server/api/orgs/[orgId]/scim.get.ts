/** GET /api/orgs/:orgId/scim -> IAM GET /orgs/:orgId/scim (owners): `{ data: { connection } }`. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'scimConnection', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'scimConnection', { params }))
})
