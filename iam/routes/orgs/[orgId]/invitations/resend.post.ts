import { ROUTES } from '../../../../contract/routes'
import { resendInvitation } from '../../../../features/organizations/invitations'
import { authFail } from '../../../../http/auth'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, body, defineRoute, limit } from '../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  invitation_not_found: () => authFail(404, 'invitation_not_found', 'No such pending invitation'),
  mail_failed: () => authFail(500, 'mail_failed', 'The invitation mail could not be sent'),
} as const

/** POST /orgs/:orgId/invitations/resend (full authentication; invitations:manage) `{ invitationId }`: a new link, 7 more days. */
export default defineRoute(ROUTES.orgInvitationResend, [body(), limit('emails', ({ user }) => ({ userId: user!.userId }))], async ({ event, ctx, user, params, body }) => {
  const inviterName = event.context.account?.name || 'A member'
  const result = await resendInvitation(ctx, { orgId: params.orgId, userId: user.userId, inviterName, invitationId: body.invitationId })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ resent: true as const, expiresAt: result.expiresAt })
})
