/**
 * The authentication chain: requireAccessToken,
 * requireRefreshToken, getFingerPrint, checkForActiveMfa, protectRoute, and fullAuthentication
 * which runs them in that order. Early exits go through httpFail. Also the device gate and token
 * responses shared by signup, login, OAuth login, refresh and MFA verification.
 */
import { setResponseStatus, type H3Event } from 'h3'
import type { JWTPayload } from 'jose'
import type { ErrorCode } from '../contract/error-codes'
import { useIam, type IamContext } from '../context'
import type { Visitor } from '../db/schema'
import { mayHaveAnomaly } from '../features/anomalies/anomaly-marker'
import { getActiveAnomaly, type ActiveAnomaly } from '../features/anomalies/anomaly-store'
import { judgeSession, sessionCountBounds, velocitySince, type GuardResult } from '../features/anomalies/anomaly-service'
import { banVisitor, fingerPrintOf, isCanaryId, recordVisit, visitWithoutWrite, type Visit, type VisitFacts } from '../features/devices/devices-service'
import type { FingerPrint } from '../features/devices/fingerprint'
import { findAuthState, type AuthAccount, type AuthState } from '../features/sessions/auth-state-repo'
import { hashRefreshToken, isRefreshTokenShape } from '../features/sessions/refresh-token'
import type { TokenPair } from '../features/sessions/session-service'
import { checkAccessToken } from '../features/tokens/token-service'
import { containsXss } from '../lib/xss'
import { getCanaryCookie, getSessionCookie, setSessionCookie } from './cookies'
import { getClientIp, requestHeader } from './request'
import { httpFail } from './respond'

/** The authenticated caller (`req.user` of the original Express service: userId, visitor id, device), plus the session (family) id and the device row. */
export interface RequestUser {
  userId: number
  visitor_id: string
  accessTokenId: string
  roles: string[]
  payload: JWTPayload
  sessionId: string
  visitorRowId: number
}

declare module 'h3' {
  interface H3EventContext {
    /** raw access token (requireAccessToken) */
    token?: string
    /** raw refresh token (requireRefreshToken) */
    refreshToken?: string
    /** the request's fingerprint (features/devices/fingerprint.ts); unset when fingerprinting failed */
    fingerPrint?: FingerPrint
    /** the device of the canary_id cookie (getFingerPrint, or sign-in.ts requireSignInDevice) */
    visitor?: Visitor
    /** the authenticated caller (protectRoute) */
    user?: RequestUser
    /** the account of req.user, read by full authentication in the same statement as the session */
    account?: AuthAccount
    /** ms since the epoch of the session's last sign-in proof: its sign-in, or its last re-authentication (http/reauthenticate.ts) */
    signInProofAt?: number
    /** the public id of the platform administrator who opened this session on the account's behalf (session_families.impersonated_by); unset otherwise */
    impersonatedBy?: string
  }
}

export const MFA_MESSAGE = 'A login link has been sent to your email.'
export const RELOGIN_ERROR = 'Re-login is required'

/** `{ ok: false, date, error, code, ...extra }` with `status`: the error body of the auth routes. */
export function authFail(status: number, code: ErrorCode, error: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): never {
  return httpFail(status, { ok: false, date: new Date().toISOString(), error, code, ...extra }, headers)
}

/**
 * The code of a session the guard or the rotation refused (`reason` the anomaly type): the three
 * causes a page words for the person, else the general one (contract/responses.ts SESSION_ENDED_CODES).
 */
export function sessionEndedCode(reason: string): ErrorCode {
  if (reason === 'SESSION_REVOKED') return 'session_revoked'
  if (reason === 'SESSION_EXPIRED') return 'session_expired'
  if (reason === 'REFRESH_TOKEN_REUSED') return 'refresh_token_reused'
  return 'relogin_required'
}

/** 401 `Re-login is required` with `reason` (an anomaly type or a cause) and its code. */
export function failRelogin(reason?: string, extra: Record<string, unknown> = {}): never {
  return authFail(401, reason ? sessionEndedCode(reason) : 'relogin_required', RELOGIN_ERROR, { ...(reason ? { reason } : {}), ...extra })
}

/** Spec Authentication 2: the header is checked, the token is not verified here. */
export function requireAccessToken(event: H3Event): string {
  const header = requestHeader(event, 'authorization')
  const match = header ? /^Bearer(?: (.*))?$/i.exec(header.trim()) : null
  if (!match) return authFail(401, 'access_token_missing', 'Missing Bearer token')
  const token = (match[1] ?? '').trim()
  if (!token) return authFail(401, 'access_token_missing', 'Access token missing')
  event.context.token = token
  return token
}

/** Spec Authentication 3. */
export function requireRefreshToken(event: H3Event): string {
  const token = getSessionCookie(event)
  if (!token) return authFail(401, 'session_missing', 'Refresh token missing')
  event.context.refreshToken = token
  return token
}

/**
 * Spec req.fingerPrint, and the device of the canary cookie when there is one (registered when
 * unknown). A banned device ends here with 403. A fingerprint failure leaves it unset.
 */
export async function getFingerPrint(event: H3Event): Promise<FingerPrint | undefined> {
  const canary = getCanaryCookie(event)
  return (await visitRequestDevice(event, isCanaryId(canary) ? canary : null, recordVisit)).fingerprint ?? undefined
}

/**
 * The request's fingerprint (req.fingerPrint), then `visit` of the device `canaryId` names, when
 * one does: a banned device ends here with 403; the fingerprint and the device are kept on the
 * event. getFingerPrint records every visit; the sign-in routes write only when due (sign-in.ts).
 */
export async function visitRequestDevice<V extends Visit>(
  event: H3Event,
  canaryId: string | null,
  visit: (ctx: IamContext, facts: VisitFacts) => Promise<V>,
): Promise<{ fingerprint: FingerPrint | null; visited: V | null }> {
  const ctx = useIam()
  const ipAddress = getClientIp(event)
  const userAgent = requestHeader(event, 'user-agent') ?? ''
  const fingerprint = await fingerPrintOf(ctx, userAgent, ipAddress)
  if (fingerprint) event.context.fingerPrint = fingerprint
  if (canaryId === null) return { fingerprint, visited: null }
  const visited = await visit(ctx, { canaryId, ipAddress, userAgent, fingerprint })
  if (visited.banned) authFail(403, 'device_banned', 'Device banned', { banned: true })
  event.context.visitor = visited.visitor
  return { fingerprint, visited }
}

/** XSS in free text: the device is banned and the answer is 403 `{ banned: true }` */
export async function rejectXss(event: H3Event, value: unknown): Promise<void> {
  if (!containsXss(value)) return
  const ctx = useIam()
  const visitor = event.context.visitor
  if (visitor) {
    await banVisitor(ctx.db, visitor.id, {
      banScore: ctx.config.botDetector.banScore,
      now: ctx.now(),
      reason: 'xss',
      ipAddress: getClientIp(event),
      userId: event.context.user?.userId ?? null,
    })
  }
  ctx.log.warn('xss input: device banned', { path: event.path.split('?')[0], visitorRowId: visitor?.id })
  httpFail(403, { banned: true, code: 'xss_rejected' })
}

/** 202 MFA pending or 401 re-login for a cached anomaly (docs/anomalies.md). */
function failActiveAnomaly(anomaly: ActiveAnomaly): never {
  if (anomaly.action === 'mfa') return httpFail(202, { mfa: true, message: MFA_MESSAGE, code: 'mfa_required' })
  return httpFail(401, { error: RELOGIN_ERROR, message: anomaly.type, code: sessionEndedCode(anomaly.type) })
}

/** Spec Authentication 4: a cached anomaly of this session short-circuits the request. */
export async function checkForActiveMfa(event: H3Event): Promise<void> {
  const cookie = getSessionCookie(event)
  if (!cookie) return
  const anomaly = await getActiveAnomaly(useIam().store, cookie)
  if (anomaly) failActiveAnomaly(anomaly)
}

/** Maps a failed session guard to the response (202 MFA, 401 re-login, 500 mail failure). */
export function failGuard(result: Exclude<GuardResult, { ok: true }>): never {
  if (result.code === 'mfa') return httpFail(202, { mfa: true, message: MFA_MESSAGE, code: 'mfa_required' })
  if (result.code === 'mfa_failed') return authFail(500, 'mail_failed', 'Could not send the verification email; try again later')
  return failRelogin(result.type, result.revokedFor ? { revokedFor: result.revokedFor } : {})
}

/** The device of a session route; a session without its device cookie must sign in again. */
export function requireSessionDevice(event: H3Event): Visitor {
  const visitor = event.context.visitor
  if (!visitor) return failRelogin('DEVICE_COOKIE_MISSING')
  return visitor
}

/**
 * Spec Authentication 5 on facts already read: the verified access token, the nine checks, req.user.
 * `verified` is the in-process signature check (EdDSA against the key ring; no database).
 */
async function protectRoute(
  event: H3Event,
  refreshToken: string,
  verified: Awaited<ReturnType<typeof checkAccessToken>>,
  state: AuthState,
): Promise<RequestUser> {
  const ctx = useIam()
  if (!verified.ok) return verified.code === 'expired' ? authFail(401, 'access_token_expired', 'Access token expired') : authFail(401, 'access_token_invalid', 'Invalid access token')
  const visitor = requireSessionDevice(event)
  const { payload } = verified
  const input = {
    refreshToken,
    access: { sub: payload.sub, sid: payload.sid },
    visitor,
    ipAddress: getClientIp(event),
    fingerprint: event.context.fingerPrint ?? null,
    acceptLanguage: requestHeader(event, 'accept-language'),
  }
  const result = await judgeSession(ctx, input, state.session, state.sessions)
  if (!result.ok) return failGuard(result)
  const user: RequestUser = {
    // the session's user (the token's `sub` is their public id, matched to it by check 2)
    userId: result.session.family.user_id,
    visitor_id: visitor.visitor_id,
    accessTokenId: payload.jti,
    roles: payload.roles,
    payload,
    sessionId: payload.sid,
    visitorRowId: visitor.id,
  }
  event.context.user = user
  if (state.account) event.context.account = state.account
  const family = state.session!.family
  event.context.signInProofAt = Math.max(family.created_at.getTime(), family.reauthenticated_at?.getTime() ?? 0)
  if (family.impersonated_by) event.context.impersonatedBy = family.impersonated_by
  return user
}

/**
 * requireAccessToken, requireRefreshToken, getFingerPrint, checkForActiveMfa, protectRoute, with
 * their outcomes in that order. The hot path of every signed-in request (docs/performance.md): the access
 * token is verified in process while the session, account, device and session counts come from one
 * statement (read fresh every time, so a revocation anywhere fails the next request at once); the
 * cached anomaly is looked up in shared storage only when the family is marked as possibly having
 * one; the device and last_seen are written only when due (at most once a minute) or changed.
 */
export async function fullAuthentication(event: H3Event): Promise<RequestUser> {
  const ctx = useIam()
  // already checked and kept by the request rules (middleware 30) for routes whose rule says so
  const token = event.context.token ?? requireAccessToken(event)
  const refreshToken = event.context.refreshToken ?? requireRefreshToken(event)
  const { state, alongside: verified } = await readSession(event, ctx, refreshToken, () => checkAccessToken(ctx, token))
  return protectRoute(event, refreshToken, verified, state)
}

/**
 * getFingerPrint, requireRefreshToken's lookup and checkForActiveMfa on ONE statement, for full
 * authentication and the refresh guard: findAuthState (token, family, account, device, session
 * counts) with `alongside` run at the same time; then the device step (the row written only when
 * due or changed: banned device 403); then the cached anomaly, looked up in shared storage only
 * when the family is marked as possibly having one (anomaly-marker.ts).
 */
export async function readSession<T>(
  event: H3Event,
  ctx: IamContext,
  refreshToken: string,
  alongside: () => Promise<T>,
): Promise<{ state: AuthState; alongside: T; ipAddress: string; fingerprint: FingerPrint | null; now: number }> {
  const ipAddress = getClientIp(event)
  const userAgent = requestHeader(event, 'user-agent') ?? ''
  const fingerprint = await fingerPrintOf(ctx, userAgent, ipAddress)
  if (fingerprint) event.context.fingerPrint = fingerprint
  const canary = getCanaryCookie(event)
  const canaryId = isCanaryId(canary) ? canary : null
  const now = ctx.now()
  const [state, other] = await Promise.all([
    findAuthState(ctx.db, {
      // a value that is not shaped like a raw token (a stored hash, junk) never reaches a lookup
      tokenHash: isRefreshTokenShape(refreshToken) ? hashRefreshToken(refreshToken) : null,
      canaryId,
      now: new Date(now),
      since: velocitySince(ctx, now),
      countUpTo: sessionCountBounds(ctx),
    }),
    alongside(),
  ])
  const family = state.session?.family
  const anomaly = family && mayHaveAnomaly(family.anomaly_until, now) ? await getActiveAnomaly(ctx.store, refreshToken) : null
  if (canaryId) {
    const seen = { ipAddress, userAgent, fingerprint }
    const visit = (state.visitor && visitWithoutWrite(ctx, state.visitor, seen)) || (await recordVisit(ctx, { canaryId, ...seen }))
    if (visit.banned) authFail(403, 'device_banned', 'Device banned', { banned: true })
    event.context.visitor = visit.visitor
  }
  if (anomaly) failActiveAnomaly(anomaly)
  return { state, alongside: other, ipAddress, fingerprint: fingerprint ?? null, now }
}

/** Sets the session cookie and answers `{ ok: true, date, accessToken, accessIat, expiresInMs }`. */
export function sendTokens(event: H3Event, ctx: IamContext, pair: TokenPair, status: number) {
  setSessionCookie(event, ctx.config, pair.refreshToken, pair.refreshExpiresAt, ctx.now())
  setResponseStatus(event, status)
  return { ok: true as const, date: new Date().toISOString(), accessToken: pair.accessToken, accessIat: pair.accessIat, expiresInMs: pair.expiresInMs }
}
