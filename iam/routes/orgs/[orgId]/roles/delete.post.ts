import { ROUTES } from '../../../../contract/routes'
import { deleteRole } from '../../../../features/organizations/roles'
import { authFail } from '../../../../http/auth'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  role_not_found: () => authFail(404, 'role_not_found', 'No such role'),
  role_in_use: () => authFail(409, 'role_in_use', 'A member or a pending invitation holds this role'),
} as const

/** POST /orgs/:orgId/roles/delete (full authentication; roles:manage) `{ roleId }`. */
export default defineRoute(ROUTES.orgRoleDelete, [], async ({ ctx, user, params, body }) => {
  const result = await deleteRole(ctx.db, { orgId: params.orgId, userId: user.userId, roleId: body.roleId, now: ctx.now() })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ deleted: true as const })
})
