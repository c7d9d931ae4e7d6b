/**
 * POST /api/auth/sso-discover `{ email }` -> IAM POST /sso/discover: whether the address's domain
 * routes to an organization's SAML sign-in (`{ data: { sso, connectionId, required } }`). The
 * answer depends on the domain alone, so the login page may ask it for any typed address.
 */
import { callIamRoute } from '../../utils/bff/iam-call'
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'ssoDiscover')
  return relay(event, await callIamRoute(event, 'ssoDiscover', { body }))
})
