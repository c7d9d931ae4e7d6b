import { ROUTES } from '../../../contract/routes'
import { searchOrgs } from '../../../features/admin/orgs'
import { authFail } from '../../../http/auth'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /admin/orgs (platform administrators, a recent sign-in): a page of organizations, searched by slug or name prefix. */
export default defineRoute(ROUTES.adminOrgs, [], async ({ ctx, query }) => {
  const result = await searchOrgs(ctx, query)
  if (!result.ok) return authFail(400, 'validation_failed', 'Validation failed', { fields: { cursor: 'Not a cursor' } })
  return okEnvelope({ orgs: result.orgs, next: result.next })
})
