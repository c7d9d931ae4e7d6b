/**
 * The refresh route's chain before the rotation (requireRefreshToken, getFingerPrint,
 * checkForActiveMfa, the anomaly checks) on ONE database read, the read full authentication makes
 * (findAuthState: token, family, account, device and session counts). The device row is written
 * only when due, as full authentication does (visitWithoutWrite, at most once a minute); the
 * family's last_seen likewise, but written by the rotation statement (judgeSession defers it); the
 * cached anomaly is looked up only for a marked family (readSession in auth.ts). Outcomes keep the
 * chain's order: banned device 403, cached anomaly 202/401, missing device 401, then the nine checks.
 */
import type { H3Event } from 'h3'
import { requestHeader } from './request'
import { useIam } from '../context'
import { judgeSession } from '../features/anomalies/anomaly-service'
import type { RotationFacts } from '../features/sessions/rotate-service'
import { failGuard, failRelogin, readSession, requireSessionDevice } from './auth'

/** Runs the guard for `refreshToken` (the session cookie); what the rotation needs, or the request ends. */
export async function guardRefresh(event: H3Event, refreshToken: string): Promise<RotationFacts> {
  const ctx = useIam()
  const { state, ipAddress, fingerprint } = await readSession(event, ctx, refreshToken, async () => undefined)
  const visitor = requireSessionDevice(event)
  // a due last_seen is written by the rotation statement itself (one round trip fewer)
  const guard = await judgeSession(ctx, { refreshToken, access: null, visitor, ipAddress, fingerprint, acceptLanguage: requestHeader(event, 'accept-language') }, state.session, state.sessions, { deferTouch: true })
  if (!guard.ok) return failGuard(guard)
  // the account is gone with its sessions; a session row without one is no session
  if (!state.account) return failRelogin('SESSION_NOT_FOUND')
  const { token, family } = guard.session
  return {
    raw: refreshToken,
    canaryId: visitor.canary_id,
    status: token.status,
    familyId: family.id,
    userId: family.user_id,
    subject: state.account.public_id,
    roles: state.account.roles,
    activeOrgId: family.active_org_id,
    impersonatedBy: family.impersonated_by,
    impersonationEndsAt: family.impersonation_ends_at,
    visitor: visitor.visitor_id,
    touchBefore: guard.touchDue ?? null,
    visitorRowId: visitor.id,
    ipAddress,
  }
}
