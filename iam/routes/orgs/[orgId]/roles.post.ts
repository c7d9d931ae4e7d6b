import { setResponseStatus } from 'h3'
import { ROUTES } from '../../../contract/routes'
import { createRole } from '../../../features/organizations/roles'
import { authFail } from '../../../http/auth'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  owner_only_permission: () => authFail(400, 'owner_only_permission', 'Only owners hold that permission', { fields: { permissions: 'organization:delete and owners:manage belong to owners only' } }),
  name_taken: () => authFail(409, 'role_name_taken', 'The organization has a role of that name'),
} as const

/** POST /orgs/:orgId/roles (full authentication; roles:manage) `{ name, permissions }`. */
export default defineRoute(ROUTES.orgRoleCreate, [], async ({ event, ctx, user, params, body }) => {
  const result = await createRole(ctx.db, { orgId: params.orgId, userId: user.userId, name: body.name, permissions: body.permissions, now: ctx.now() })
  if (!result.ok) return answerFailure(FAILURES, result)
  setResponseStatus(event, 201)
  return okEnvelope({ role: result.role })
})
