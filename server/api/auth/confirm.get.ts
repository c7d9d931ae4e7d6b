/** GET /api/auth/confirm?token&random&reason&visitor -> IAM GET /auth/verify-custom-mfa (preview, full authentication). */
import { readLinkQuery } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const query = readLinkQuery(event, 'verifyCustomMfaLink')
  const res = await callAuthedRoute(event, 'verifyCustomMfaLink', { query })
  return relay(event, res)
})
