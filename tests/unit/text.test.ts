import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isSafeText, safeString } from '../../iam/contract/text'
import { findRejectedText, isStorableText } from '../../iam/lib/text'

describe('lib/text', () => {
  it('refuses NUL, every other C0 control, DEL and C1 controls', () => {
    for (let c = 0; c <= 0x1f; c++) expect(isSafeText(`a${String.fromCharCode(c)}b`)).toBe(false)
    for (const c of ['\u007f', '\u0080', '\u0085', '\u009f']) expect(isSafeText(`a${c}b`)).toBe(false)
  })

  it('refuses a lone surrogate but accepts a surrogate pair (emoji)', () => {
    expect(isSafeText('a\ud800b')).toBe(false)
    expect(isSafeText('\udc00')).toBe(false)
    expect(isSafeText('key 🔑')).toBe(true)
  })

  it('accepts any well-formed text without control characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(isSafeText(text)).toBe(!/\p{Cc}/u.test(text))
      }),
    )
  })

  it('storable text allows control characters other than NUL, never NUL or lone surrogates', () => {
    expect(isStorableText('line 1\nline 2\t')).toBe(true)
    expect(isStorableText('a\u0000')).toBe(false)
    expect(isStorableText('a\ud800')).toBe(false)
  })

  it('findRejectedText names the top-level key a rejected string sits under, also deep and in keys', () => {
    expect(findRejectedText({ a: 'ok', b: { c: ['x', 'y\u0000'] } })).toBe('b')
    expect(findRejectedText({ a: { 'k\u0000': 1 } })).toBe('a')
    expect(findRejectedText({ 'k\ud800': 1 })).toBe('')
    expect(findRejectedText({ a: 'ok', n: 1, t: true, z: null })).toBeUndefined()
    expect(findRejectedText({ a: 'x\ny' }, isStorableText)).toBeUndefined()
  })

  it('safeString refuses unsafe text before trimming (a trailing newline is not trimmed away)', () => {
    expect(safeString().trim().safeParse('name\n').success).toBe(false)
    expect(safeString().trim().safeParse('  Zoë  ').data).toBe('Zoë')
  })
})
