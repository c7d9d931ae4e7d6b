import { ROUTES } from '../../../../contract/routes'
import { removeMember } from '../../../../features/organizations/members'
import { authFail } from '../../../../http/auth'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  member_not_found: () => authFail(404, 'member_not_found', 'No such member'),
  unknown_role: () => authFail(400, 'role_not_found', 'No such role in this organization'),
  last_owner: () => authFail(409, 'last_owner', 'The organization needs an owner who can act: make another member an owner first, then remove this one'),
} as const

/** POST /orgs/:orgId/members/remove (full authentication; members:manage) `{ userId }`. */
export default defineRoute(ROUTES.orgMemberRemove, [], async ({ ctx, user, actor, params, body }) => {
  const result = await removeMember(ctx.db, { orgId: params.orgId, userId: user.userId, memberId: body.userId, actor, now: ctx.now() })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ removed: true as const })
})
