import { ROUTES } from '../../../../contract/routes'
import { revokeInvitation } from '../../../../features/organizations/invitations'
import { authFail } from '../../../../http/auth'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

const FAILURES = { ...ORG_FAILURES, invitation_not_found: () => authFail(404, 'invitation_not_found', 'No such pending invitation') } as const

/** POST /orgs/:orgId/invitations/revoke (full authentication; invitations:manage) `{ invitationId }`. */
export default defineRoute(ROUTES.orgInvitationRevoke, [], async ({ ctx, user, params, body }) => {
  const result = await revokeInvitation(ctx, { orgId: params.orgId, userId: user.userId, invitationId: body.invitationId })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ revoked: true as const })
})
