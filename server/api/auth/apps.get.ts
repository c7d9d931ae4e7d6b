/** GET /api/auth/apps (signed in) -> IAM GET /auth/oidc/apps: the account's connected apps. */
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'oidcConnectedApps', {})))
