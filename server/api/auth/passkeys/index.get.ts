/** GET /api/auth/passkeys (signed in) -> IAM GET /auth/passkeys: `{ data: { passkeys } }`. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'passkeysList', {})))
