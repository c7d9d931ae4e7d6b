/**
 * Runs the anomaly checks for one request and applies the outcome: MFA (anomaly stored under the
 * session cookie's hash, magic link + code mailed) or re-login (family revoked when the rule says
 * so). The decision itself is evaluate-anomalies.ts; this file gathers the facts and writes.
 */
import { negotiateLocale } from '../../contract/locales'
import type { IamContext } from '../../context'
import type { Visitor } from '../../db/schema'
import type { FingerPrint } from '../devices/fingerprint'
import { sendAdaptiveMfa, type AdaptiveMfaFailureCode } from '../mfa/adaptive'
import { revokeFamily } from '../sessions/session-service'
import type { AuthSession } from '../sessions/auth-state-repo'
import { familyRevokedReason, touchFamily } from '../sessions/sessions-repo'
import { markAnomalyUntil } from './anomaly-marker'
import { clearAnomalyForCookie, setActiveAnomaly } from './anomaly-store'
import { evaluateAnomalies, type AnomalySettings, type AnomalyType, type DriftPrint } from './evaluate-anomalies'

/** The refresh token, family and subject facts the checks read (full authentication's read, auth-state-repo.ts). */
export type SessionFacts = AuthSession

export type GuardResult<S extends SessionFacts = SessionFacts> =
  // touchDue: last_seen is due and was left to the caller (deferTouch); move it where it is older than this
  | { ok: true; session: S; touchDue?: Date }
  | { ok: false; code: 'mfa'; type: AnomalyType }
  // revokedFor: with SESSION_REVOKED, why the session was revoked (the person is told on the sign-in page)
  | { ok: false; code: 'relogin'; type: AnomalyType; revokedFor?: string }
  | { ok: false; code: 'mfa_failed'; type: AnomalyType; cause: AdaptiveMfaFailureCode }

/** What a guarded request must do instead: confirm by MFA, sign in again, or retry later (no mail went out). */
export type GuardFailureCode = Extract<GuardResult, { ok: false }>['code']

const settingsByConfig = new WeakMap<IamContext['config'], AnomalySettings>()

/** anomalySettings of a config, built once per config object (the checks run on every signed-in request). */
function settingsOf(config: IamContext['config']): AnomalySettings {
  let settings = settingsByConfig.get(config)
  if (!settings) {
    settings = anomalySettings(config)
    settingsByConfig.set(config, settings)
  }
  return settings
}

export function anomalySettings(config: IamContext['config']): AnomalySettings {
  const rt = config.jwt.refresh_tokens
  return {
    maxSessionLifeMs: rt.MAX_SESSION_LIFE,
    reuseGraceMs: rt.reuseGraceMs,
    maxAllowedSessionsPerUser: rt.maxAllowedSessionsPerUser,
    idleMs: config.anomalies.idleMs,
    velocity: config.anomalies.velocity,
    ipDrift: config.anomalies.ipDrift,
    banScore: config.botDetector.banScore,
    allowProxy: config.anomalies.allowProxy,
  }
}

const driftPrint = (fp: Record<string, unknown> | FingerPrint | null): DriftPrint | null => (fp ? (fp as DriftPrint) : null)

export interface GuardInput {
  refreshToken: string
  access: { sub: string; sid: string } | null
  visitor: Visitor | null
  ipAddress: string
  fingerprint: FingerPrint | null
  /** the request's Accept-Language as sent: read (iam/contract/locales.ts) only when a code is mailed */
  acceptLanguage?: string | undefined
}

/** The velocity window start for `now` (anomaly check 6 counts sessions created since). */
export const velocitySince = (ctx: IamContext, now: number) => new Date(now - ctx.config.anomalies.velocity.windowMs)

const SESSION_ROWS_PER_DEVICE = 10

/**
 * How many of the newest sessions checks 5 and 6 read for their device counts: ten times what
 * each needs to decide, so a history of sessions on one device rarely hides other devices while a
 * user's long history costs nothing per request.
 */
export const sessionCountBounds = (ctx: IamContext) => ({
  live: ctx.config.jwt.refresh_tokens.maxAllowedSessionsPerUser * SESSION_ROWS_PER_DEVICE,
  recent: (ctx.config.anomalies.velocity.count + 1) * SESSION_ROWS_PER_DEVICE,
})


/**
 * The nine checks on facts already read, and the outcome applied. A passing session writes
 * last_seen only when it is due (at most once per minute, by the IAM clock), so steady-state
 * requests write nothing. `deferTouch`: a due write is not made here but answered as `touchDue`,
 * for a caller that folds it into a write of its own (the rotation statement).
 */
export async function judgeSession<S extends SessionFacts>(
  ctx: IamContext,
  input: GuardInput,
  state: S | null,
  sessions: { live: number; recent: number },
  options: { deferTouch?: boolean } = {},
): Promise<GuardResult<S>> {
  const now = ctx.now()
  const settings = settingsOf(ctx.config)
  const decision = evaluateAnomalies(
    {
      now,
      token: state
        ? { status: state.token.status, expiresAt: state.token.expires_at.getTime(), usedAt: state.token.used_at?.getTime() ?? null }
        : null,
      family: state
        ? {
            id: state.family.id,
            userId: state.family.user_id,
            subject: state.subject,
            visitorRowId: state.family.visitor_id,
            createdAt: state.family.created_at.getTime(),
            lastSeen: state.family.last_seen.getTime(),
            lastMfaAt: state.family.last_mfa_at?.getTime() ?? null,
            revoked: !!state.family.revoked_at,
            ipAddress: state.family.ip_address,
            fingerprint: driftPrint(state.family.fingerprint),
          }
        : null,
      access: input.access,
      device: input.visitor ? { rowId: input.visitor.id, score: input.visitor.score } : null,
      ipAddress: input.ipAddress,
      fingerprint: driftPrint(input.fingerprint),
      sessions,
    },
    settings,
  )
  if (decision.ok) {
    const everyMs = Math.min(60_000, Math.floor(settings.idleMs / 4))
    // due by the row just read; touchFamily re-checks in SQL, so concurrent requests write once
    if (now - state!.family.last_seen.getTime() > everyMs) {
      if (options.deferTouch) return { ok: true, session: state!, touchDue: new Date(now - everyMs) }
      await touchFamily(ctx.db, state!.family.id, new Date(now), everyMs)
    }
    return { ok: true, session: state! }
  }
  const log = { type: decision.type, familyId: state?.family.id, userId: state?.family.user_id }
  if (decision.action === 'relogin') {
    if (decision.revokeFamily && state) {
      const reason = decision.type.toLowerCase()
      // the owner learns from their security activity why the session ended, and from which address
      await revokeFamily(ctx.db, state.family.id, reason, now, {
        type: 'session_revoked_anomaly',
        userId: state.family.user_id,
        visitorRowId: input.visitor?.id ?? null,
        ipAddress: input.ipAddress,
        details: { reason, sessionId: state.family.id },
        at: new Date(now),
      })
    }
    ctx.log.info('session anomaly: re-login required', log)
    // one read, only for a session that was revoked (the checks' facts leave the reason out: the hot path never needs it)
    const revokedFor = decision.type === 'SESSION_REVOKED' && state ? await familyRevokedReason(ctx.db, state.family.id) : null
    return { ok: false, code: 'relogin', type: decision.type, ...(revokedFor ? { revokedFor } : {}) }
  }
  // MFA: record first, so parallel requests of this session already answer 202 from the cache; the
  // family's mark before the anomaly, so every request that could find the anomaly looks for it
  const family = state!.family
  await markAnomalyUntil(ctx.db, family.id, new Date(now + ctx.config.magic_links.expiresInMs))
  await setActiveAnomaly(
    ctx.store,
    input.refreshToken,
    { action: 'mfa', type: decision.type, familyId: family.id, userId: family.user_id, createdAt: now },
    ctx.config.magic_links.expiresInMs,
  )
  const sent = await sendAdaptiveMfa(ctx, {
    userId: family.user_id,
    familyId: family.id,
    visitor: input.visitor?.visitor_id ?? '',
    anomaly: decision.type,
    ipAddress: input.ipAddress,
    requestLocale: negotiateLocale(input.acceptLanguage),
  })
  if (!sent.ok) {
    // the owner never got a link: leaving the session MFA-pending would lock them out
    await clearAnomalyForCookie(ctx.store, input.refreshToken)
    ctx.log.error('adaptive MFA dispatch failed', { ...log, cause: sent.code })
    return { ok: false, code: 'mfa_failed', type: decision.type, cause: sent.code }
  }
  ctx.log.info('session anomaly: MFA required', { ...log, sent: sent.sent })
  return { ok: false, code: 'mfa', type: decision.type }
}
