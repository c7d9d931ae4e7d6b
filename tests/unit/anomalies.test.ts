import { describe, expect, it } from 'vitest'
import { evaluateAnomalies, fingerprintDrifted, ipDrifted, type AnomalyFacts, type AnomalySettings } from '../../iam/features/anomalies/evaluate-anomalies'

const NOW = 1_800_000_000_000
const HOUR = 3_600_000
const settings: AnomalySettings = {
  maxSessionLifeMs: 30 * 24 * HOUR,
  reuseGraceMs: 10_000,
  maxAllowedSessionsPerUser: 5,
  idleMs: 24 * HOUR,
  velocity: { count: 3, windowMs: 10 * 60_000 },
  ipDrift: 'subnet',
  banScore: 100,
  allowProxy: false,
}
const print = { browser: 'Chrome', os: 'Linux', device: 'desktop', countryCode: 'DE', asn: 3320 }

function facts(over: Partial<AnomalyFacts> = {}, family: Partial<NonNullable<AnomalyFacts['family']>> = {}): AnomalyFacts {
  return {
    now: NOW,
    token: { status: 'active', expiresAt: NOW + HOUR, usedAt: null },
    family: {
      id: 'fam', userId: 7, subject: 'pub-7', visitorRowId: 1, createdAt: NOW - HOUR, lastSeen: NOW - 60_000, lastMfaAt: null,
      revoked: false, ipAddress: '203.0.113.10', fingerprint: print, ...family,
    },
    access: { sub: 'pub-7', sid: 'fam' },
    device: { rowId: 1, score: 0 },
    ipAddress: '203.0.113.10',
    fingerprint: print,
    sessions: { live: 1, recent: 1 },
    ...over,
  }
}

describe('evaluateAnomalies', () => {
  it('passes a normal request', () => {
    expect(evaluateAnomalies(facts(), settings)).toEqual({ ok: true })
  })
  it('1: re-login for a missing, revoked, expired or too old session', () => {
    expect(evaluateAnomalies(facts({ token: null }), settings)).toMatchObject({ action: 'relogin', type: 'SESSION_NOT_FOUND' })
    expect(evaluateAnomalies(facts({}, { revoked: true }), settings)).toMatchObject({ action: 'relogin', type: 'SESSION_REVOKED' })
    expect(evaluateAnomalies(facts({ token: { status: 'active', expiresAt: NOW, usedAt: null } }), settings)).toMatchObject({ type: 'SESSION_EXPIRED' })
    expect(evaluateAnomalies(facts({}, { createdAt: NOW - settings.maxSessionLifeMs }), settings)).toMatchObject({ type: 'SESSION_EXPIRED' })
  })
  it('1: a rotated token is reuse (family revoked) unless within the grace window from the same device', () => {
    const rotated = (usedAt: number) => ({ token: { status: 'rotated' as const, expiresAt: NOW + HOUR, usedAt } })
    expect(evaluateAnomalies(facts(rotated(NOW - 1000)), settings)).toEqual({ ok: true })
    expect(evaluateAnomalies(facts(rotated(NOW - 11_000)), settings)).toEqual({ ok: false, action: 'relogin', type: 'REFRESH_TOKEN_REUSED', revokeFamily: true })
    expect(evaluateAnomalies(facts({ ...rotated(NOW - 1000), device: { rowId: 2, score: 0 } }), settings)).toMatchObject({ type: 'REFRESH_TOKEN_REUSED', revokeFamily: true })
  })
  it('2: re-login when the access token belongs to another session or user', () => {
    expect(evaluateAnomalies(facts({ access: { sub: 'pub-7', sid: 'other' } }), settings)).toMatchObject({ action: 'relogin', type: 'SESSION_MISMATCH' })
    expect(evaluateAnomalies(facts({ access: { sub: 'pub-8', sid: 'fam' } }), settings)).toMatchObject({ action: 'relogin', type: 'SESSION_MISMATCH' })
    // a session whose account row is gone matches no token
    expect(evaluateAnomalies(facts({}, { subject: null }), settings)).toMatchObject({ action: 'relogin', type: 'SESSION_MISMATCH' })
  })
  it('3: MFA for another device cookie', () => {
    expect(evaluateAnomalies(facts({ device: { rowId: 2, score: 0 } }), settings)).toEqual({ ok: false, action: 'mfa', type: 'NEW_DEVICE' })
  })
  it('4: MFA for an idle device', () => {
    expect(evaluateAnomalies(facts({}, { lastSeen: NOW - 25 * HOUR }), settings)).toMatchObject({ action: 'mfa', type: 'IDLE_DEVICE' })
  })
  it("5: MFA when this session's device makes maxAllowedSessionsPerUser live devices, asked once: not again after a passed code, however long ago", () => {
    expect(evaluateAnomalies(facts({ sessions: { live: 5, recent: 1 } }), settings)).toMatchObject({ action: 'mfa', type: 'TOO_MANY_SESSIONS' })
    expect(evaluateAnomalies(facts({ sessions: { live: 4, recent: 1 } }), settings)).toEqual({ ok: true })
    expect(evaluateAnomalies(facts({ sessions: { live: 5, recent: 1 } }, { lastMfaAt: NOW - 20 * 24 * HOUR }), settings)).toEqual({ ok: true })
  })
  it('6: asks for the emailed code, never revokes, when more than velocity.count devices opened sessions in the window', () => {
    expect(evaluateAnomalies(facts({ sessions: { live: 4, recent: 4 } }), settings)).toEqual({ ok: false, action: 'mfa', type: 'SESSION_VELOCITY' })
    expect(evaluateAnomalies(facts({ sessions: { live: 3, recent: 3 } }), settings)).toEqual({ ok: true })
    // a code passed on this session (or a second factor at its sign-in) lets it through
    expect(evaluateAnomalies(facts({ sessions: { live: 4, recent: 4 } }, { lastMfaAt: NOW - HOUR }), settings)).toEqual({ ok: true })
  })
  it('7: MFA for an IP in another /24, not for one in the same /24', () => {
    expect(evaluateAnomalies(facts({ ipAddress: '203.0.113.99' }), settings)).toEqual({ ok: true })
    expect(evaluateAnomalies(facts({ ipAddress: '198.51.100.10' }), settings)).toMatchObject({ action: 'mfa', type: 'IP_DRIFT' })
    expect(evaluateAnomalies(facts({ ipAddress: '203.0.113.99' }), { ...settings, ipDrift: 'exact' })).toMatchObject({ type: 'IP_DRIFT' })
    expect(evaluateAnomalies(facts({ ipAddress: '198.51.100.10' }), { ...settings, ipDrift: 'off' })).toEqual({ ok: true })
  })
  it('8: MFA for a device scoring 25% of banScore, or a proxy/hosting network unless allowed', () => {
    expect(evaluateAnomalies(facts({ device: { rowId: 1, score: 25 } }), settings)).toMatchObject({ action: 'mfa', type: 'DEVICE_REPUTATION' })
    expect(evaluateAnomalies(facts({ device: { rowId: 1, score: 24 } }), settings)).toEqual({ ok: true })
    expect(evaluateAnomalies(facts({ fingerprint: { ...print, hosting: true } }), settings)).toMatchObject({ type: 'DEVICE_REPUTATION' })
    expect(evaluateAnomalies(facts({ fingerprint: { ...print, proxy: true } }), { ...settings, allowProxy: true })).toEqual({ ok: true })
  })
  it('9: MFA for a new browser family, OS, device type, country or ASN', () => {
    for (const change of [{ browser: 'Firefox' }, { os: 'Windows' }, { device: 'mobile' }, { countryCode: 'FR' }, { asn: 64500 }]) {
      expect(evaluateAnomalies(facts({ fingerprint: { ...print, ...change } }), settings)).toMatchObject({ action: 'mfa', type: 'FINGERPRINT_DRIFT' })
    }
  })
  it('takes the first matching check in order', () => {
    const many = facts({ device: { rowId: 2, score: 90 }, ipAddress: '198.51.100.1', fingerprint: { ...print, os: 'Windows' } }, { lastSeen: NOW - 48 * HOUR })
    expect(evaluateAnomalies(many, settings)).toMatchObject({ type: 'NEW_DEVICE' })
  })
})

describe('non-anomalies', () => {
  it('a browser version bump is not fingerprint drift', () => {
    const v123 = { ...print, browserVersion: '123.0.1' }
    const v124 = { ...print, browserVersion: '124.0.0' }
    expect(fingerprintDrifted(v123, v124)).toBe(false)
    expect(evaluateAnomalies(facts({ fingerprint: v124 }, { fingerprint: v123 }), settings)).toEqual({ ok: true })
  })
  it('lat/lon jitter and a missing geo side are not drift', () => {
    const here = { ...print, lat: 52.52, lon: 13.4 }
    const jitter = { ...print, lat: 52.53, lon: 13.41 }
    expect(fingerprintDrifted(here, jitter)).toBe(false)
    expect(fingerprintDrifted(print, { browser: 'Chrome', os: 'Linux', device: 'desktop' })).toBe(false)
  })
  it('an IP change within the same /24 (IPv4) or /48 (IPv6) is not drift', () => {
    expect(ipDrifted('subnet', '192.0.2.1', '192.0.2.254')).toBe(false)
    expect(ipDrifted('subnet', '2001:db8:1::1', '2001:db8:1:ffff::2')).toBe(false)
    expect(ipDrifted('subnet', '2001:db8:1::1', '2001:db8:2::1')).toBe(true)
  })
})
