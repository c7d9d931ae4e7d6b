/** GET /api/orgs/:orgId/domains -> IAM GET /orgs/:orgId/domains (members:manage): `{ data: { domains } }` with the TXT record of each. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgDomains', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgDomains', { params }))
})
