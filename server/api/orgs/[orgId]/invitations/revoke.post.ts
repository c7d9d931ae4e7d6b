/** POST /api/orgs/:orgId/invitations/revoke `{ invitationId }` -> IAM POST /orgs/:orgId/invitations/revoke: `{ data: { revoked } }`; 404 not pending. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgInvitationRevoke', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgInvitationRevoke')
  return relay(event, await callAuthedRoute(event, 'orgInvitationRevoke', { params, body }))
})
