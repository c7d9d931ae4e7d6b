import { defineEventHandler } from 'h3'
import { useIam } from '../../../context'
import { guardSession } from '../../../features/anomalies/anomaly-service'
import { rotateRefreshToken } from '../../../features/sessions/rotate-service'
import {
  authFail,
  checkForActiveMfa,
  failGuard,
  getFingerPrint,
  RELOGIN_ERROR,
  requireRefreshToken,
  requireSessionDevice,
  sendTokens,
} from '../../../http/auth'
import { enforceRateLimit } from '../../../http/rate-limit'
import { getClientIp } from '../../../http/request'

/**
 * POST /auth/user/refresh-session (cookie-only; acceptCookieOnly runs in middleware 30):
 * requireRefreshToken, getFingerPrint, checkForActiveMfa, the anomaly checks, rotateCredentials.
 * 201 rotated; 202 MFA; 401 missing/invalid/expired/reused/too old; 429.
 */
export default defineEventHandler(async (event) => {
  const ctx = useIam()
  const refreshToken = requireRefreshToken(event)
  const ipAddress = getClientIp(event)
  await enforceRateLimit(ctx, 'refresh', { ip: ipAddress })
  await getFingerPrint(event)
  await checkForActiveMfa(event)
  const visitor = requireSessionDevice(event)
  const guard = await guardSession(ctx, { refreshToken, access: null, visitor, ipAddress, fingerprint: event.context.fingerPrint ?? null })
  if (!guard.ok) return failGuard(guard)
  const rotated = await rotateRefreshToken(ctx, { raw: refreshToken, canaryId: visitor.canary_id, familyId: guard.session.family.id })
  if (!rotated.ok) {
    // only when a concurrent rotation of this token stalled for seconds: the client may simply retry
    if (rotated.code === 'busy') return authFail(503, 'A refresh of this session is in progress; retry', {}, { 'Retry-After': '1' })
    return authFail(401, RELOGIN_ERROR, { reason: rotated.code === 'reused' ? 'REFRESH_TOKEN_REUSED' : 'SESSION_EXPIRED' })
  }
  return sendTokens(event, ctx, rotated.pair, 201)
})
