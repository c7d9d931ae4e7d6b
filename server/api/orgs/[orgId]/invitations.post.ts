/** POST /api/orgs/:orgId/invitations `{ email, role }` -> IAM POST /orgs/:orgId/invitations (invitations:manage): 201 `{ data: { invitation } }`; 409 a member already; 429. */
import { readIamBody, readIamParams } from '../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgInvite', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgInvite')
  return relay(event, await callAuthedRoute(event, 'orgInvite', { params, body }))
})
