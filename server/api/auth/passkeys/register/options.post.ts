/** POST /api/auth/passkeys/register/options (signed in) -> IAM: `{ data: { options } }` for startRegistration(). */
import { defineBffHandler, relay } from '../../../../utils/bff/respond'
import { callAuthedRoute } from '../../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'passkeyRegisterOptions', {})))
