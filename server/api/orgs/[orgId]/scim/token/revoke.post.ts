/** POST /api/orgs/:orgId/scim/token/revoke -> IAM POST /orgs/:orgId/scim/token/revoke (owners): `{ data: { revoked } }`; provisioning stops at once. */
import { readIamParams } from '../../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'scimTokenRevoke', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'scimTokenRevoke', { params }))
})
