import { describe, expect, it } from 'vitest'
import { hashRefreshToken, isRefreshTokenShape, newRefreshToken, openForToken, sealForToken } from '../../iam/features/sessions/refresh-token'
import { refreshExpiry } from '../../iam/features/sessions/session-service'

const DAY = 86_400_000
const cfg = { refresh_ttl: 7 * DAY, rememberMe_ttl: 30 * DAY, MAX_SESSION_LIFE: 30 * DAY, reuseGraceMs: 10_000, maxAllowedSessionsPerUser: 5, byPassAnomaliesFor: 0, domain: 'localhost' }

describe('refresh tokens', () => {
  it('are 32 random bytes in base64url, stored as SHA-256 hex', () => {
    const raw = newRefreshToken()
    expect(Buffer.from(raw, 'base64url')).toHaveLength(32)
    expect(isRefreshTokenShape(raw)).toBe(true)
    expect(hashRefreshToken(raw)).toMatch(/^[0-9a-f]{64}$/)
    expect(newRefreshToken()).not.toBe(raw)
  })
  it('refuse a stored hash as a token (wrong shape)', () => {
    expect(isRefreshTokenShape(hashRefreshToken(newRefreshToken()))).toBe(false)
  })
  it('seal the grace-window pair so only the holder of the old token opens it', () => {
    const raw = newRefreshToken()
    const sealed = sealForToken(raw, { accessToken: 'a', refreshToken: 'b' })
    expect(openForToken(raw, sealed)).toEqual({ accessToken: 'a', refreshToken: 'b' })
    expect(openForToken(newRefreshToken(), sealed)).toBeNull()
    expect(openForToken(raw, `${sealed}x`)).toBeNull()
  })
  it('open a sealed pair only with the full 16-byte GCM tag (a truncated tag is refused)', () => {
    const raw = newRefreshToken()
    const sealed = sealForToken(raw, { accessToken: 'a', refreshToken: 'b' })
    const [iv, tag, body] = sealed.split('.')
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16)
    for (const bytes of [4, 8, 12, 15]) {
      const truncated = Buffer.from(tag!, 'base64url').subarray(0, bytes).toString('base64url')
      expect(openForToken(raw, [iv, truncated, body].join('.'))).toBeNull()
    }
    expect(openForToken(raw, [iv, tag, body].join('.'))).toEqual({ accessToken: 'a', refreshToken: 'b' })
  })
})

describe('refreshExpiry', () => {
  it('uses refresh_ttl, or rememberMe_ttl when remembered', () => {
    expect(refreshExpiry(cfg, false, 0, 0)).toBe(7 * DAY)
    expect(refreshExpiry(cfg, true, 0, 0)).toBe(30 * DAY)
  })
  it('never passes MAX_SESSION_LIFE counted from the family start', () => {
    expect(refreshExpiry(cfg, false, 0, 28 * DAY)).toBe(30 * DAY)
    expect(refreshExpiry(cfg, true, 0, 10 * DAY)).toBe(30 * DAY)
  })
})
