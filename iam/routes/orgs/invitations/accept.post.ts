import { ROUTES } from '../../../contract/routes'
import { acceptInvitation } from '../../../features/organizations/invitations'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute, type FailureTable } from '../../../http/route'

const FAILURES: FailureTable<Exclude<Awaited<ReturnType<typeof acceptInvitation>>, { ok: true }>> = {
  invitation_not_found: () => authFail(404, 'invitation_not_found', 'No such invitation'),
  invitation_used: () => authFail(410, 'invitation_used', 'This invitation was used, revoked, or has expired'),
  other_address: () => authFail(403, 'invitation_other_address', 'This invitation was sent to another address: sign in with that address to accept it'),
  unverified_address: () => authFail(403, 'email_unverified', 'Confirm your email address before accepting an invitation', { verifyEmail: true }),
}

/** POST /orgs/invitations/accept (full authentication, a confirmed address) `{ token }`: the user joins. */
export default defineRoute(ROUTES.orgAcceptInvitation, [], async ({ ctx, user, actor, body }) => {
  const result = await acceptInvitation(ctx, { token: body.token, userId: user.userId, actor })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ org: result.org })
})
