import { ROUTES } from '../../../../contract/routes'
import { updateRole } from '../../../../features/organizations/roles'
import { authFail } from '../../../../http/auth'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  owner_only_permission: () => authFail(400, 'owner_only_permission', 'Only owners hold that permission', { fields: { permissions: 'organization:delete and owners:manage belong to owners only' } }),
  role_not_found: () => authFail(404, 'role_not_found', 'No such role'),
  name_taken: () => authFail(409, 'role_name_taken', 'The organization has another role of that name'),
} as const

/** POST /orgs/:orgId/roles/update (full authentication; roles:manage) `{ roleId, name, permissions }`. */
export default defineRoute(ROUTES.orgRoleUpdate, [], async ({ ctx, user, params, body }) => {
  const result = await updateRole(ctx.db, { orgId: params.orgId, userId: user.userId, roleId: body.roleId, name: body.name, permissions: body.permissions })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ role: result.role })
})
