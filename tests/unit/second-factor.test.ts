import { randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { hashRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from '../../iam/features/second-factors/recovery-codes'
import { matchTotpStep, newTotpSecret } from '../../iam/features/second-factors/totp/totp-code'
import { openTotpSecret, sealTotpSecret } from '../../iam/features/second-factors/totp/totp-secret-box'

const key = (id: string) => ({ id, key: randomBytes(32).toString('base64url') })
const NOW = Date.UTC(2026, 10, 24, 12, 0, 10)
const codeAt = (secret: string, timestamp: number) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp })

describe('TOTP codes (RFC 6238)', () => {
  it('matches the current step and one step either side, nothing further', () => {
    const secret = newTotpSecret()
    const step = Math.floor(NOW / 30_000)
    expect(matchTotpStep(secret, codeAt(secret, NOW), NOW)).toBe(step)
    expect(matchTotpStep(secret, codeAt(secret, NOW - 30_000), NOW)).toBe(step - 1)
    expect(matchTotpStep(secret, codeAt(secret, NOW + 30_000), NOW)).toBe(step + 1)
    expect(matchTotpStep(secret, codeAt(secret, NOW - 60_000), NOW)).toBeNull()
    expect(matchTotpStep(secret, codeAt(secret, NOW + 60_000), NOW)).toBeNull()
  })

  it('matches the RFC 6238 appendix B vector for SHA-1 (59 s -> 287082, 6 digits)', () => {
    const secret = Secret.fromLatin1('12345678901234567890').base32
    expect(matchTotpStep(secret, '287082', 59_000)).toBe(1)
  })

  it('makes 160-bit secrets and refuses codes that are not 6 digits', () => {
    const secret = newTotpSecret()
    expect(Secret.fromBase32(secret).bytes).toHaveLength(20)
    expect(matchTotpStep(secret, `${codeAt(secret, NOW)}0`, NOW)).toBeNull()
    expect(matchTotpStep(secret, 'abcdef', NOW)).toBeNull()
  })
})

describe('sealed TOTP secrets', () => {
  it('opens with any listed key and seals with the first', () => {
    const [oldKey, newKey] = [key('old'), key('new')]
    const sealed = sealTotpSecret([oldKey], 7, 'JBSWY3DPEHPK3PXP')
    expect(sealed.startsWith('old.')).toBe(true)
    expect(openTotpSecret([newKey, oldKey], 7, sealed)).toBe('JBSWY3DPEHPK3PXP')
    expect(sealTotpSecret([newKey, oldKey], 7, 'JBSWY3DPEHPK3PXP').startsWith('new.')).toBe(true)
  })

  it('does not open under another account, without its key, or altered', () => {
    const k = key('k1')
    const sealed = sealTotpSecret([k], 7, 'JBSWY3DPEHPK3PXP')
    expect(openTotpSecret([k], 8, sealed)).toBeNull()
    expect(openTotpSecret([key('k2')], 7, sealed)).toBeNull()
    expect(openTotpSecret([{ ...key('x'), id: 'k1' }], 7, sealed)).toBeNull()
    // a character inside the sealed text, where all six bits are data (the last character of
    // base64url also carries padding bits a decoder ignores, so changing it may change nothing)
    const at = sealed.length - 10
    const tampered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1)
    expect(openTotpSecret([k], 7, tampered)).toBeNull()
  })
})

describe('recovery codes', () => {
  it('makes 10 distinct codes of 16 Crockford base32 symbols', () => {
    const codes = newRecoveryCodes()
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/)
  })

  it('reads a code in any case, with spaces or dashes, to the same digest', () => {
    const [code] = newRecoveryCodes()
    const canonical = normalizeRecoveryCode(code!)!
    expect(normalizeRecoveryCode(code!.toLowerCase().replaceAll('-', ' '))).toBe(canonical)
    expect(hashRecoveryCode(canonical)).toMatch(/^[0-9a-f]{64}$/)
    expect(normalizeRecoveryCode('ILOU-ILOU-ILOU-ILOU')).toBeNull()
    expect(normalizeRecoveryCode('ABCD-ABCD')).toBeNull()
  })
})
