/**
 * POST /api/orgs/:orgId/scim/token -> IAM POST /orgs/:orgId/scim/token (owners): 201
 * `{ data: { token, connection } }`, the token shown once (it is for the identity provider's
 * settings, so it is answered to the page, unlike the session's tokens); 409 one exists.
 */
import { readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'scimTokenCreate', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'scimTokenCreate', { params }))
})
