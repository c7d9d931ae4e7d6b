/** POST /api/auth/resend-verification (signed in, no body) -> IAM POST /auth/resend-verification. */
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthedRoute(event, 'resendVerification', {})
  return relay(event, res)
})
