import { ROUTES } from '../../contract/routes'
import { listMyOrganizations } from '../../features/organizations/organizations'
import { okEnvelope } from '../../http/respond'
import { defineRoute } from '../../http/route'

/** GET /orgs (full authentication): the user's organizations and their role in each. */
export default defineRoute(ROUTES.orgList, [], async ({ ctx, user }) => okEnvelope({ orgs: await listMyOrganizations(ctx.db, user.userId) }))
