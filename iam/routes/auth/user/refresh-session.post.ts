import { defineEventHandler } from 'h3'
import { useIam } from '../../../context'
import { rotateRefreshToken } from '../../../features/sessions/rotate-service'
import { authFail, RELOGIN_ERROR, requireRefreshToken, sendTokens } from '../../../http/auth'
import { enforceRateLimit } from '../../../http/rate-limit'
import { guardRefresh } from '../../../http/refresh-guard'
import { getClientIp } from '../../../http/request'
import { emitSignal } from '../../../lib/signals'

/**
 * POST /auth/user/refresh-session (cookie-only; acceptCookieOnly runs in middleware 30):
 * requireRefreshToken, getFingerPrint, checkForActiveMfa, the anomaly checks, rotateCredentials.
 * 201 rotated; 202 MFA; 401 missing/invalid/expired/reused/too old; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const refreshToken = requireRefreshToken(event)
  await enforceRateLimit(ctx, 'refresh', { ip: getClientIp(event) })
  const facts = await guardRefresh(event, refreshToken)
  const rotated = await rotateRefreshToken(ctx, facts)
  emitSignal({ kind: 'rotation', outcome: rotated.ok ? 'ok' : rotated.code })
  if (!rotated.ok) return authFail(401, RELOGIN_ERROR, { reason: rotated.code === 'reused' ? 'REFRESH_TOKEN_REUSED' : 'SESSION_EXPIRED' })
  return sendTokens(event, ctx, rotated.pair, 201)
})
