import { setResponseStatus } from 'h3'
import { ROUTES } from '../../../../contract/routes'
import { issueScimToken } from '../../../../features/enterprise/scim-tokens'
import { authFail } from '../../../../http/auth'
import { ORG_FAILURES } from '../../../../http/org-failures'
import { okEnvelope } from '../../../../http/respond'
import { answerFailure, defineRoute } from '../../../../http/route'

const FAILURES = {
  ...ORG_FAILURES,
  exists: () => authFail(409, 'scim_token_exists', 'The organization has a SCIM token already: rotate it, or revoke it first'),
  none: () => authFail(404, 'scim_token_not_found', 'The organization has no SCIM token'),
} as const

/** POST /orgs/:orgId/scim/token (full authentication; owners): the new token, shown once. */
export default defineRoute(ROUTES.scimTokenCreate, [], async ({ event, ctx, user, params }) => {
  const result = await issueScimToken(ctx.db, { orgId: params.orgId, userId: user.userId, now: ctx.now(), mode: 'create' })
  if (!result.ok) return answerFailure(FAILURES, result)
  setResponseStatus(event, 201)
  return okEnvelope({ token: result.token, connection: result.connection })
})
