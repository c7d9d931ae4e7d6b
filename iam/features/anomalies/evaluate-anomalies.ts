/**
 * The nine anomaly checks of protectRoute and refresh, in order; the first hit decides.
 * Pure: every fact is passed in, so each rule is unit-tested without a server.
 *
 *   1 session missing/expired/revoked/reused  -> re-login     6 session velocity          -> MFA (unless MFA recently)
 *   2 access token sid/sub != session         -> re-login     7 client IP drift           -> MFA
 *   3 device cookie != bound device           -> MFA          8 device reputation         -> MFA
 *   4 device idle too long                    -> MFA          9 fingerprint drift         -> MFA
 *   5 too many live sessions without MFA      -> MFA
 */
import { isIPv4, sameNetwork } from '../../../shared/ip'

export type AnomalyType =
  | 'SESSION_NOT_FOUND'
  | 'SESSION_EXPIRED'
  | 'SESSION_REVOKED'
  | 'REFRESH_TOKEN_REUSED'
  | 'SESSION_MISMATCH'
  | 'NEW_DEVICE'
  | 'IDLE_DEVICE'
  | 'TOO_MANY_SESSIONS'
  | 'SESSION_VELOCITY'
  | 'IP_DRIFT'
  | 'DEVICE_REPUTATION'
  | 'FINGERPRINT_DRIFT'

export type AnomalyDecision =
  | { ok: true }
  | { ok: false; action: 'mfa'; type: AnomalyType }
  | { ok: false; action: 'relogin'; type: AnomalyType; revokeFamily: boolean }

/** The parts of a fingerprint that drift is judged on (versions and coordinates are not). */
export interface DriftPrint {
  browser?: string
  os?: string
  device?: string
  countryCode?: string
  asn?: number
  as_org?: string
  proxy?: boolean
  hosting?: boolean
}

export interface AnomalyFacts {
  now: number
  /** null when the refresh token is unknown */
  token: { status: 'active' | 'rotated' | 'revoked'; expiresAt: number; usedAt: number | null } | null
  family: {
    id: string
    userId: number
    /** the user's public id, the `sub` of the session's access tokens (null: the account is gone) */
    subject: string | null
    visitorRowId: number
    createdAt: number
    lastSeen: number
    lastMfaAt: number | null
    revoked: boolean
    ipAddress: string | null
    fingerprint: DriftPrint | null
  } | null
  /** the verified access token (protectRoute); null on refresh */
  access: { sub: string; sid: string } | null
  /** the device of this request (visitors row for its canary) */
  device: { rowId: number; score: number } | null
  ipAddress: string
  fingerprint: DriftPrint | null
  /**
   * devices (distinct visitors) of the user's sessions opened up to this one: with a live session
   * (live), and opened within the velocity window (recent)
   */
  sessions: { live: number; recent: number }
}

export interface AnomalySettings {
  maxSessionLifeMs: number
  reuseGraceMs: number
  maxAllowedSessionsPerUser: number
  idleMs: number
  velocity: { count: number; windowMs: number }
  ipDrift: 'subnet' | 'exact' | 'off'
  banScore: number
  allowProxy: boolean
}

const relogin = (type: AnomalyType, revokeFamily = false): AnomalyDecision => ({ ok: false, action: 'relogin', type, revokeFamily })
const mfa = (type: AnomalyType): AnomalyDecision => ({ ok: false, action: 'mfa', type })

/** Browser family, OS, device type, country or ASN changed; a missing side is not drift. */
export function fingerprintDrifted(bound: DriftPrint, current: DriftPrint): boolean {
  const differs = <T>(a: T | undefined, b: T | undefined) => a !== undefined && b !== undefined && a !== b
  return (
    differs(bound.browser, current.browser) ||
    differs(bound.os, current.os) ||
    differs(bound.device, current.device) ||
    differs(bound.countryCode, current.countryCode) ||
    differs(bound.asn ?? bound.as_org, current.asn ?? current.as_org)
  )
}

/** True when the IP moved per the configured mode (subnet = another /24 or /48). */
export function ipDrifted(mode: AnomalySettings['ipDrift'], bound: string | null, current: string): boolean {
  if (mode === 'off' || !bound) return false
  // the usual case, a session used from the address it was opened on, needs no parsing (the
  // answer sameNetwork would give: an IPv4 address shares its own /24)
  if (bound === current && isIPv4(current)) return false
  return mode === 'exact' ? bound !== current : !sameNetwork(bound, current)
}

/** Runs the nine checks in order. */
export function evaluateAnomalies(facts: AnomalyFacts, s: AnomalySettings): AnomalyDecision {
  const { token, family, now } = facts
  // 1. the refresh session itself
  if (!token || !family) return relogin('SESSION_NOT_FOUND')
  if (family.revoked || token.status === 'revoked') return relogin('SESSION_REVOKED')
  if (token.expiresAt <= now || family.createdAt + s.maxSessionLifeMs <= now) return relogin('SESSION_EXPIRED')
  const sameDevice = facts.device?.rowId === family.visitorRowId
  if (token.status === 'rotated') {
    const inGrace = token.usedAt !== null && now - token.usedAt < s.reuseGraceMs
    if (!(inGrace && sameDevice)) return relogin('REFRESH_TOKEN_REUSED', true)
  }
  // 2. the access token must belong to this session
  if (facts.access && (facts.access.sid !== family.id || facts.access.sub !== family.subject)) {
    return relogin('SESSION_MISMATCH')
  }
  // 3. the canary cookie names the device the session is bound to
  if (!sameDevice) return mfa('NEW_DEVICE')
  // 4. idle device
  if (now - family.lastSeen > s.idleMs) return mfa('IDLE_DEVICE')
  // 5 and 6 count devices, not sessions, and only the sessions opened up to this one
  // (auth-state-repo.ts): a person signing out and in again on one device, or a phone opened
  // before the laptop, is never asked because of what came later. A session asked once and
  // answered (the emailed code), or opened with a second factor, is not asked again for a count:
  // its count was fixed when it was opened, so asking again would only repeat the question.
  // docs/anomalies.md has the reasoning and the measured false-challenge rate of a first week.
  const provedMailboxOrFactor = family.lastMfaAt !== null
  // 5. this session's device made the user's live devices reach the cap
  if (facts.sessions.live >= s.maxAllowedSessionsPerUser && !provedMailboxOrFactor) return mfa('TOO_MANY_SESSIONS')
  // 6. more devices than velocity.count opened sessions within the window, this one the last:
  // credential stuffing or a token farm. The emailed code, not a revocation: each session was
  // opened by a sign-in that proved the credentials, so ending one only sends the person to sign
  // in again without telling them why; whoever farms sessions with a stolen password lacks the mailbox.
  if (facts.sessions.recent > s.velocity.count && !provedMailboxOrFactor) return mfa('SESSION_VELOCITY')
  // 7. client IP drift
  if (ipDrifted(s.ipDrift, family.ipAddress, facts.ipAddress)) return mfa('IP_DRIFT')
  // 8. device reputation
  const proxied = !!(facts.fingerprint?.proxy || facts.fingerprint?.hosting)
  if ((facts.device?.score ?? 0) >= s.banScore * 0.25 || (proxied && !s.allowProxy)) return mfa('DEVICE_REPUTATION')
  // 9. fingerprint drift
  if (family.fingerprint && facts.fingerprint && fingerprintDrifted(family.fingerprint, facts.fingerprint)) {
    return mfa('FINGERPRINT_DRIFT')
  }
  return { ok: true }
}
