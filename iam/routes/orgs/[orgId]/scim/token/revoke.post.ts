import { ROUTES } from '../../../../../contract/routes'
import { revokeScimToken } from '../../../../../features/enterprise/scim-tokens'
import { authFail } from '../../../../../http/auth'
import { ORG_FAILURES } from '../../../../../http/org-failures'
import { okEnvelope } from '../../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  none: () => authFail(404, 'scim_token_not_found', 'The organization has no SCIM token'),
} as const

/** POST /orgs/:orgId/scim/token/revoke (full authentication; owners): provisioning stops at once. */
export default defineRoute(ROUTES.scimTokenRevoke, [], async ({ ctx, user, params }) => {
  const result = await revokeScimToken(ctx.db, { orgId: params.orgId, userId: user.userId, now: ctx.now() })
  if (!result.ok) return answerFailure(FAILURES, result)
  return okEnvelope({ revoked: true as const })
})
