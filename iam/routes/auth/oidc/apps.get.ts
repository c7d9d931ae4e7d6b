import { ROUTES } from '../../../contract/routes'
import { listConnectedApps } from '../../../features/oidc/connected-apps'
import { okEnvelope } from '../../../http/respond'
import { defineRoute } from '../../../http/route'

/** GET /auth/oidc/apps (full authentication): the apps the account signed in to with us. */
export default defineRoute(ROUTES.oidcConnectedApps, [], async ({ ctx, user }) => okEnvelope({ apps: await listConnectedApps(ctx.db, user.userId, ctx.now()) }))
