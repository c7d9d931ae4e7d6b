/**
 * POST /api/orgs/invitations/accept (signed in) `{ token }` -> IAM POST /orgs/invitations/accept:
 * `{ data: { org } }`; 403 another address (or `verifyEmail: true`), 404 unknown, 410 used or expired.
 */
import { readIamBody } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'orgAcceptInvitation')
  return relay(event, await callAuthedRoute(event, 'orgAcceptInvitation', { body }))
})
