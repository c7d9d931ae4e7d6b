/** POST /api/auth/email/cancel (signed in, no body) -> IAM POST /update/email/cancel: the waiting change's link stops working. */
import { defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthedRoute } from '../../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'cancelEmailChange', {})))
