import { ssoRequiredChanged } from '../../../features/enterprise/sso-required'
import { ROUTES } from '../../../contract/routes'
import { deleteOrganization } from '../../../features/organizations/organizations'
import { ORG_FAILURES } from '../../../http/org-failures'
import { okEnvelope } from '../../../http/respond'
import { answerFailure, defineRoute } from '../../../http/route'

/** POST /orgs/:orgId/delete (full authentication, a recent sign-in; organization:delete). */
export default defineRoute(ROUTES.orgDelete, [], async ({ ctx, user, actor, params }) => {
  const result = await deleteOrganization(ctx.db, { orgId: params.orgId, userId: user.userId, actor, now: ctx.now() })
  if (!result.ok) return answerFailure(ORG_FAILURES, result)
  // its domains and connection went with it (cascade): their addresses may use a password again here
  await ssoRequiredChanged(ctx)
  return okEnvelope({ deleted: true as const })
})
