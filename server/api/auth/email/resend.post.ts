/** POST /api/auth/email/resend (signed in, no body) -> IAM POST /update/email/resend: the waiting change's confirmation link, mailed again. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'resendEmailChange', {})))
