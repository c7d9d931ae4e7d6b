import { ROUTES } from '../../../contract/routes'
import { rotateRefreshToken } from '../../../features/sessions/rotate-service'
import { failRelogin, sendTokens } from '../../../http/auth'
import { guardRefresh } from '../../../http/refresh-guard'
import { defineRoute, limit } from '../../../http/route'
import { emitSignal } from '../../../lib/signals'

/**
 * POST /auth/user/refresh-session (cookie-only; acceptCookieOnly runs in middleware 30):
 * requireRefreshToken, getFingerPrint, checkForActiveMfa, the anomaly checks, rotateCredentials.
 * 201 rotated; 202 MFA; 401 missing/invalid/expired/reused/too old; 429.
 */
export default defineRoute(ROUTES.refreshSession, [limit('refresh', ({ ip }) => ({ ip }))], async ({ event, ctx }) => {
  // present: the unit's presence check for auth 'session' kept it (http/auth.ts requireRefreshToken)
  const facts = await guardRefresh(event, event.context.refreshToken!)
  const rotated = await rotateRefreshToken(ctx, facts)
  emitSignal({ kind: 'rotation', outcome: rotated.ok ? 'ok' : rotated.code })
  if (!rotated.ok) return failRelogin(rotated.code === 'reused' ? 'REFRESH_TOKEN_REUSED' : 'SESSION_EXPIRED')
  return sendTokens(event, ctx, rotated.pair, 201)
})
