/**
 * GET /api/orgs/invitations/preview?token= (signed in or not) -> IAM GET /orgs/invitations/preview:
 * `{ data: { invitation: { orgName, inviterName, email (masked), expiresAt } } }` for a pending
 * invitation; 404 unknown, 410 used, revoked or expired. The landing page's first sentence.
 */
import { callIamRoute } from '../../../utils/bff/iam-call'
import { readLinkQuery } from '../../../utils/bff/input'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'orgInvitationPreview')
  return relay(event, await callIamRoute(event, 'orgInvitationPreview', { query, cookies: ['canary_id'] }))
})
