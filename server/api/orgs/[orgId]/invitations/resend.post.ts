/** POST /api/orgs/:orgId/invitations/resend `{ invitationId }` -> IAM POST /orgs/:orgId/invitations/resend: `{ data: { resent, expiresAt } }`; 404; 429. */
import { readIamBody, readIamParams } from '../../../../utils/bff/input'
import { ORG_ID_ERROR } from '../../../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const params = readIamParams(event, 'orgInvitationResend', ORG_ID_ERROR)
  const { body } = await readIamBody(event, 'orgInvitationResend')
  return relay(event, await callAuthedRoute(event, 'orgInvitationResend', { params, body }))
})
