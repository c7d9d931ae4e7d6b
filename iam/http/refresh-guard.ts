/**
 * The refresh route's chain before the rotation (spec: requireRefreshToken, getFingerPrint,
 * checkForActiveMfa, the anomaly checks) on ONE database read, the read full authentication makes
 * (findAuthState: token, family, account, device and session counts). The device row is written
 * only when due, as full authentication does (visitWithoutWrite, at most once a minute), and the
 * family's last_seen likewise (judgeSession). Outcomes keep the chain's order: banned device 403,
 * cached anomaly 202/401, missing device 401, then the nine checks.
 */
import { getRequestHeader, type H3Event } from 'h3'
import { useIam } from '../context'
import { judgeSession, velocitySince } from '../features/anomalies/anomaly-service'
import { fingerPrintOf, isCanaryId, recordVisit, visitWithoutWrite } from '../features/devices/devices-service'
import { findAuthState } from '../features/sessions/auth-state-repo'
import { hashRefreshToken, isRefreshTokenShape } from '../features/sessions/refresh-token'
import type { RotationFacts } from '../features/sessions/rotate-service'
import { authFail, checkForActiveMfa, failGuard, RELOGIN_ERROR, requireSessionDevice } from './auth'
import { getCanaryCookie } from './cookies'
import { getClientIp } from './request'

/** Runs the guard for `refreshToken` (the session cookie); what the rotation needs, or the request ends. */
export async function guardRefresh(event: H3Event, refreshToken: string): Promise<RotationFacts> {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const userAgent = getRequestHeader(event, 'user-agent') ?? ''
  const fingerprint = await fingerPrintOf(ctx, userAgent, ipAddress)
  if (fingerprint) event.context.fingerPrint = fingerprint
  const canary = getCanaryCookie(event)
  const canaryId = isCanaryId(canary) ? canary : null
  const now = ctx.now()
  // the cached-anomaly lookup runs beside the read; its outcome is applied after the device's
  const pendingAnomaly = checkForActiveMfa(event).then(
    () => null,
    (failure: unknown) => ({ failure }),
  )
  const state = await findAuthState(ctx.db, {
    // a value that is not shaped like a raw token (a stored hash, junk) never reaches a lookup
    tokenHash: isRefreshTokenShape(refreshToken) ? hashRefreshToken(refreshToken) : null,
    canaryId,
    now: new Date(now),
    since: velocitySince(ctx, now),
  })
  if (canaryId) {
    const seen = { ipAddress, userAgent, fingerprint }
    const visit = (state.visitor && visitWithoutWrite(ctx, state.visitor, seen)) || (await recordVisit(ctx, { canaryId, ...seen }))
    if (visit.banned) authFail(403, 'Device banned', { banned: true })
    event.context.visitor = visit.visitor
  }
  const anomaly = await pendingAnomaly
  if (anomaly) throw anomaly.failure
  const visitor = requireSessionDevice(event)
  const guard = await judgeSession(ctx, { refreshToken, access: null, visitor, ipAddress, fingerprint }, state.session, state.sessions)
  if (!guard.ok) return failGuard(guard)
  // the account is gone with its sessions; a session row without one is no session
  if (!state.account) return authFail(401, RELOGIN_ERROR, { reason: 'SESSION_NOT_FOUND' })
  const { token, family } = guard.session
  return {
    raw: refreshToken,
    canaryId: visitor.canary_id,
    status: token.status,
    familyId: family.id,
    userId: family.user_id,
    roles: state.account.roles,
    visitor: visitor.visitor_id,
  }
}
