import { ROUTES } from '../../../../contract/routes'
import { changeMemberRole } from '../../../../features/organizations/members'
import { authFail } from '../../../../http/auth'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  member_not_found: () => authFail(404, 'member_not_found', 'No such member'),
  unknown_role: () => authFail(400, 'role_not_found', 'No such role in this organization', { fields: { role: 'No such role in this organization' } }),
  last_owner: () => authFail(409, 'last_owner', 'The organization needs an owner who can act: make another member an owner first'),
} as const

/** POST /orgs/:orgId/members/role (full authentication; members:manage) `{ userId, role }`. */
export default defineRoute(ROUTES.orgMemberRole, [], async ({ ctx, user, actor, params, body }) => {
  const result = await changeMemberRole(ctx.db, { orgId: params.orgId, userId: user.userId, memberId: body.userId, role: body.role, actor, now: ctx.now() })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ member: result.member })
})
