/** GET /api/orgs/:orgId/sso -> IAM GET /orgs/:orgId/sso (members:manage): `{ data: { connection } }`, null when none. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgSso', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgSso', { params }))
})
