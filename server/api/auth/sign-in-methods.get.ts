/** GET /api/auth/sign-in-methods (signed in) -> IAM GET /auth/sign-in-methods: `{ data: { password, totp, passkeys, providers } }`. */
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'signInMethods', {})))
