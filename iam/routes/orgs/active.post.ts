import { ROUTES } from '../../contract/routes'
import { setActiveOrganization } from '../../features/organizations/active'
import { authFail, failRelogin, sendTokens } from '../../http/auth'
import { NO_SUCH_ORGANIZATION } from '../../http/org-failures'
import { defineRoute } from '../../http/route'

/**
 * POST /orgs/active (full authentication) `{ orgId | null }`: the session acts for the organization
 * (or for none); a new token pair whose access token carries `org`, as every later refresh's does.
 */
export default defineRoute(ROUTES.orgActive, [], async ({ event, ctx, user, body }) => {
  const result = await setActiveOrganization(ctx, { sessionId: user.sessionId, userId: user.userId, orgId: body.orgId })
  if (!result.ok) return result.code === 'not_found' ? authFail(404, 'org_not_found', NO_SUCH_ORGANIZATION) : failRelogin('SESSION_NOT_FOUND')
  return { ...sendTokens(event, ctx, result.pair, 200), org: result.org }
})
