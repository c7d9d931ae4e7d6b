import { describe, expect, it } from 'vitest'
import { codeMatches, generateCode, isCodeShape, macCode } from '../../iam/features/mfa/codes'

const secret = 'x'.repeat(32)
const binding = { linkJti: 'j1', userId: 1, familyId: 'f1' }

describe('one-time codes', () => {
  it('are 7 digits, leading zeros kept', () => {
    for (let i = 0; i < 500; i++) expect(generateCode()).toMatch(/^\d{7}$/)
  })

  it('spread over the whole range (no fixed prefix)', () => {
    const first = new Set(Array.from({ length: 300 }, () => generateCode()[0]))
    expect(first.size).toBeGreaterThan(5)
  })

  it('accept only 7 digits as input shape', () => {
    expect(isCodeShape('0123456')).toBe(true)
    for (const bad of ['123456', '12345678', '12345a7', ' 1234567', '１２３４５６７']) expect(isCodeShape(bad)).toBe(false)
  })

  it('match their MAC and nothing else', () => {
    const mac = macCode(secret, '0012345', binding)
    expect(mac).not.toContain('0012345')
    expect(codeMatches(secret, '0012345', binding, mac)).toBe(true)
    expect(codeMatches(secret, '0012346', binding, mac)).toBe(false)
    expect(codeMatches('y'.repeat(32), '0012345', binding, mac)).toBe(false)
  })

  it('are bound to their link, user and session', () => {
    const mac = macCode(secret, '1234567', binding)
    expect(codeMatches(secret, '1234567', { ...binding, linkJti: 'j2' }, mac)).toBe(false)
    expect(codeMatches(secret, '1234567', { ...binding, userId: 2 }, mac)).toBe(false)
    expect(codeMatches(secret, '1234567', { ...binding, familyId: 'f2' }, mac)).toBe(false)
    expect(codeMatches(secret, '1234567', { ...binding, familyId: null }, mac)).toBe(false)
  })
})
