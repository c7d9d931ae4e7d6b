/**
 * GET /api/orgs (signed in) -> IAM GET /orgs: `{ data: { orgs: [{ id, slug, name, role, roleName }],
 * active } }`. `active` (`{ id, slug, role }` or null) is the organization this session acts for, as
 * the IAM read it from the session's access token (GET /secret/accesstoken/metadata verifies it):
 * the header's switcher marks it.
 */
import { activeOrgOf } from '../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const listed = await callAuthedRoute(event, 'orgList', {})
  if (listed.status !== 200) return relay(event, listed)
  // after the list: a refresh the list needed has already put the current token in place
  const metadata = await callAuthedRoute(event, 'accessTokenMetadata', {})
  const body = relay(event, listed)
  const data = body.data && typeof body.data === 'object' ? body.data : {}
  return { ...body, data: { ...data, active: metadata.status === 200 ? activeOrgOf(metadata.body) : null } }
})
