import { ROUTES } from '../../../../../contract/routes'
import { issueScimToken } from '../../../../../features/enterprise/scim-tokens'
import { authFail } from '../../../../../http/auth'
import { ORG_FAILURES } from '../../../../../http/org-failures'
import { okEnvelope } from '../../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  exists: () => authFail(409, 'scim_token_exists', 'The organization has a SCIM token already'),
  none: () => authFail(404, 'scim_token_not_found', 'The organization has no SCIM token'),
} as const

/** POST /orgs/:orgId/scim/token/rotate (full authentication; owners): a new token; the old one stops at once. */
export default defineRoute(ROUTES.scimTokenRotate, [], async ({ ctx, user, params }) => {
  const result = await issueScimToken(ctx.db, { orgId: params.orgId, userId: user.userId, now: ctx.now(), mode: 'rotate' })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ token: result.token, connection: result.connection })
})
