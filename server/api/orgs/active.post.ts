/**
 * POST /api/orgs/active (signed in) `{ orgId | null }` -> IAM POST /orgs/active. The IAM answers a
 * new token pair whose access token carries the `org` claim: relay moves it into the HttpOnly
 * cookies (and the rotated refresh token's Set-Cookie on), so every later call of this browser acts
 * for the organization. The browser gets `{ ok, signedIn, org }` (the claim's id, slug and role), no token.
 */
import { readIamBody } from '../../utils/bff/input'
import { activeOrgOf } from '../../utils/bff/orgs'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'orgActive')
  const res = await callAuthedRoute(event, 'orgActive', { body })
  const answer = relay(event, res)
  return res.status === 200 ? { ...answer, org: activeOrgOf({ payload: res.body }) } : answer
})
