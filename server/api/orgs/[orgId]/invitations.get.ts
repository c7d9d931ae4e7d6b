/** GET /api/orgs/:orgId/invitations -> IAM GET /orgs/:orgId/invitations (invitations:read): `{ data: { invitations } }`. */
import { readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgInvitations', ORG_ID_ERROR)
  return relay(event, await callAuthedRoute(event, 'orgInvitations', { params }))
})
