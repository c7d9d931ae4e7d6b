import { ROUTES } from '../../contract/routes'
import { endImpersonatedSession } from '../../features/admin/impersonation'
import { resolveFamilyAnomaly } from '../../features/anomalies/anomaly-store'
import { hashRefreshToken, isRefreshTokenShape } from '../../features/sessions/refresh-token'
import { revokeFamily } from '../../features/sessions/session-service'
import { findSessionByTokenHash } from '../../features/sessions/sessions-repo'
import { clearSessionCookie } from '../../http/cookies'
import { getClientIp } from '../../http/request'
import { defineRoute } from '../../http/route'

/**
 * POST /auth/logout (cookie-only): Bearer header and session cookie required (401 otherwise).
 * Revokes the session the cookie names and clears the cookie; an unknown or dead session still
 * answers 200 (logging out twice is not an error).
 */
export default defineRoute(ROUTES.logout, [], async ({ event, ctx }) => {
  // present: the unit's presence checks for auth 'bearer+session' kept it (http/auth.ts requireRefreshToken)
  const refreshToken = event.context.refreshToken!
  if (isRefreshTokenShape(refreshToken)) {
    const state = await findSessionByTokenHash(ctx.db, hashRefreshToken(refreshToken))
    if (state && !state.family.revoked_at && state.family.impersonated_by) {
      // the end of a session on someone's behalf is recorded on both accounts (features/admin/impersonation.ts)
      await endImpersonatedSession(ctx, state.family.id, { visitorRowId: null, ipAddress: getClientIp(event) })
    } else if (state && !state.family.revoked_at) {
      await revokeFamily(ctx.db, state.family.id, 'logout', ctx.now())
      await resolveFamilyAnomaly(ctx.store, state.family.id)
    }
  }
  clearSessionCookie(event, ctx.config)
  return { ok: true, date: new Date().toISOString() }
})
