import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import {
  buildLinkUrl,
  createRandom,
  digestsEqual,
  hashRandom,
  paramsMatchClaims,
  signLinkToken,
  verifyLinkToken,
} from '../../iam/features/mfa/link-token'
import { isCustomReason, isGenericCustomReason } from '../../iam/features/mfa/purposes'

const secret = 's'.repeat(40)
const now = Date.parse('2026-11-21T20:00:00Z')

describe('magic-link token', () => {
  it('carries purpose, subject <PURPOSE>_<visitor> and jti', async () => {
    const { token, claims } = await signLinkToken(secret, { purpose: 'PASSWORD_RESET', visitor: 'v1', expiresInMs: 60_000, now })
    const check = await verifyLinkToken(secret, token, now + 1000)
    expect(check).toEqual({ ok: true, claims: { ...claims, expiresAt: Math.ceil((now + 60_000) / 1000) * 1000 } })
    expect(claims.subject).toBe('PASSWORD_RESET_v1')
    expect(paramsMatchClaims({ token, random: 'r', reason: 'PASSWORD_RESET', visitor: 'v1' }, claims)).toBe(true)
  })

  it('is expired after its lifetime', async () => {
    const { token } = await signLinkToken(secret, { purpose: 'X_Y', visitor: 'v', expiresInMs: 60_000, now })
    expect(await verifyLinkToken(secret, token, now + 61_000)).toEqual({ ok: false, code: 'expired' })
  })

  it('is invalid under another secret, when tampered or with another algorithm', async () => {
    const { token } = await signLinkToken(secret, { purpose: 'X_Y', visitor: 'v', expiresInMs: 60_000, now })
    expect(await verifyLinkToken('o'.repeat(40), token, now)).toEqual({ ok: false, code: 'invalid' })
    const [h, p, s] = token.split('.')
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), purpose: 'PASSWORD_RESET' })).toString('base64url')
    expect(await verifyLinkToken(secret, `${h}.${forged}.${s}`, now)).toEqual({ ok: false, code: 'invalid' })
    const hs512 = await new SignJWT({ purpose: 'X_Y' }).setProtectedHeader({ alg: 'HS512' }).setIssuer('iam:magic-link')
      .setSubject('X_Y_v').setJti('j').setExpirationTime(Math.floor(now / 1000) + 60).sign(new TextEncoder().encode(secret))
    expect(await verifyLinkToken(secret, hs512, now)).toEqual({ ok: false, code: 'invalid' })
    expect(await verifyLinkToken(secret, 'not-a-jwt', now)).toEqual({ ok: false, code: 'invalid' })
  })

  it('rejects a URL whose visitor or reason differs from the token', async () => {
    const { token, claims } = await signLinkToken(secret, { purpose: 'MAGIC_LINK_MFA_CHECKS', visitor: 'v1', expiresInMs: 60_000, now })
    expect(paramsMatchClaims({ token, random: 'r', reason: 'MAGIC_LINK_MFA_CHECKS', visitor: 'v2' }, claims)).toBe(false)
    expect(paramsMatchClaims({ token, random: 'r', reason: 'PASSWORD_RESET', visitor: 'v1' }, claims)).toBe(false)
  })

  it('random is 32 bytes and only its SHA-256 is compared', () => {
    const random = createRandom()
    expect(Buffer.from(random, 'base64url')).toHaveLength(32)
    expect(digestsEqual(hashRandom(random), hashRandom(random))).toBe(true)
    expect(digestsEqual(hashRandom(random), hashRandom(createRandom()))).toBe(false)
    expect(digestsEqual(hashRandom(random), 'short')).toBe(false)
  })

  it('builds the link on the configured domain and path', () => {
    const url = buildLinkUrl('http://127.0.0.1:3000', '/auth/mfa', { token: 'a.b.c', random: 'r+/', reason: 'R', visitor: 'v' })
    expect(url).toBe('http://127.0.0.1:3000/auth/mfa?token=a.b.c&random=r%2B%2F&reason=R&visitor=v')
  })
})

describe('custom reasons', () => {
  it('accept [A-Z0-9_]{3,64} that is not a built-in purpose', () => {
    expect(isCustomReason('PAYMENT_CONFIRM')).toBe(true)
    expect(isCustomReason('change_email')).toBe(true)
    expect(isGenericCustomReason('change_email')).toBe(false)
    for (const bad of ['AB', 'x'.repeat(3), 'A'.repeat(65), 'PAY-1', 'MAGIC_LINK_MFA_CHECKS', 'PASSWORD_RESET']) expect(isCustomReason(bad)).toBe(false)
  })
})
