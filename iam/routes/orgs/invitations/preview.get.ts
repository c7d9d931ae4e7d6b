import { ROUTES } from '../../../contract/routes'
import { previewInvitation } from '../../../features/organizations/invitations'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute, limit, query, type FailureTable } from '../../../http/route'

const FAILURES: FailureTable<Exclude<Awaited<ReturnType<typeof previewInvitation>>, { ok: true }>> = {
  invitation_not_found: () => authFail(404, 'invitation_not_found', 'No such invitation'),
  invitation_used: () => authFail(410, 'invitation_used', 'This invitation was used, revoked, or has expired'),
}

/**
 * GET /orgs/invitations/preview?token= (no authentication; the links limiter per address, as the
 * other link previews): the invitation landing page tells a signed-out visitor what the link is for.
 */
export default defineRoute(
  ROUTES.orgInvitationPreview,
  [limit('links', ({ ip }) => ({ ip, on: 'preview' })), query()],
  async ({ ctx, query }) => {
    const result = await previewInvitation(ctx.db, { token: query.token, now: ctx.now() })
    if (!result.ok) return answerFailure(FAILURES, result)
    return okEnvelope({ invitation: result.invitation })
  },
)
