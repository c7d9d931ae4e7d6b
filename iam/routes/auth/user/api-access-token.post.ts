import { ROUTES } from '../../../contract/routes'
import { issueApiAccessToken } from '../../../features/tokens/api-access-token'
import type { AccessPayload } from '../../../features/tokens/access-token'
import { authFail } from '../../../http/auth'
import { authorizedAccount } from '../../../http/authorized-account'
import { defineRoute } from '../../../http/route'

/**
 * POST /auth/user/api-access-token (full authentication) `{ audience }`: an access token for one
 * API of the session, `aud` that API alone (iam/features/tokens/api-access-token.ts). The gateway's
 * API proxy asks once per session and API and caches it (server/utils/upstream-token.ts).
 */
export default defineRoute(ROUTES.apiAccessToken, [], async (req) => {
  const { ctx, user } = authorizedAccount(req)
  // full authentication verified this payload (iam/features/tokens/access-token.ts checkClaims)
  const payload = user.payload as AccessPayload
  const result = await issueApiAccessToken(
    ctx,
    {
      userId: user.userId,
      sessionId: user.sessionId,
      visitor: payload.visitor,
      roles: user.roles,
      ...(payload.org ? { org: payload.org } : {}),
      ...(payload.act ? { act: payload.act } : {}),
      exp: payload.exp,
    },
    req.body.audience,
  )
  if (!result.ok) {
    if (result.code === 'no_account') authFail(404, 'account_not_found', 'Not found')
    authFail(403, 'audience_not_allowed', 'The IAM does not issue tokens for this audience (jwt.api_access_tokens.audiences).', { reason: 'AUDIENCE_NOT_ALLOWED' })
  }
  return { ok: true, date: new Date(ctx.now()).toISOString(), accessToken: result.token, tokenType: 'Bearer', audience: result.audience, expiresAt: new Date(result.expiresAt).toISOString() }
})
