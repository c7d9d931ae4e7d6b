import { setResponseStatus } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { createInvitation } from '../../../features/organizations/invitations'
import { authFail } from '../../../http/auth'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, body, defineRoute, limit } from '../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  unknown_role: () => authFail(400, 'role_not_found', 'No such role in this organization', { fields: { role: 'No such role in this organization' } }),
  already_member: () => authFail(409, 'already_member', 'That address is a member already'),
  mail_failed: () => authFail(500, 'mail_failed', 'The invitation mail could not be sent'),
} as const

/** POST /orgs/:orgId/invitations (full authentication; invitations:manage) `{ email, role }`: mails a single-use link. */
export default defineRoute(ROUTES.orgInvite, [body(), limit('emails', ({ user }) => ({ userId: user!.userId }))], async ({ event, ctx, user, actor, params, body }) => {
  const account = event.context.account
  const result = await createInvitation(ctx, { orgId: params.orgId, userId: user.userId, inviterName: account?.name || 'A member', email: body.email, role: body.role, actor })
  if (!result.ok) return answerFailure(FAILURES, result)
  setResponseStatus(event, 201)
  return okEnvelope({ invitation: result.invitation })
})
