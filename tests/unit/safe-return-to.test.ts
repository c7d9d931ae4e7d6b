/**
 * Return-to targets (composables/safe-return-to.ts): whatever the input, the answer is a
 * same-origin path that stays one when the browser resolves it again.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { safeReturnTo } from '../../composables/safe-return-to'

const ORIGIN = 'https://gateway.example'

/** What a safe answer looks like: `/` alone or `/` then neither `/` nor `\`, same origin once resolved. */
function expectSafe(result: string): void {
  expect(result).toMatch(/^\/(?:$|[^/\\])/)
  expect(new URL(result, ORIGIN).origin).toBe(ORIGIN)
}

describe('safeReturnTo', () => {
  it('keeps same-origin paths with their query and fragment', () => {
    expect(safeReturnTo('/tokens')).toBe('/tokens')
    expect(safeReturnTo('/')).toBe('/')
    expect(safeReturnTo('/auth/confirm?token=a&reason=b#top')).toBe('/auth/confirm?token=a&reason=b#top')
    expect(safeReturnTo('/a/./b/../c')).toBe('/a/c')
  })

  it.each([
    '/.//evil.com',
    '/..//evil.com',
    '/././/evil.com',
    '/a/..//evil.com',
    '/%2e//evil.com',
    '/%2e%2e//evil.com',
    '/%2F%2Fevil.com',
    '/%2f/evil.com',
    '/%5c%5cevil.com',
    '/%5Cevil.com',
    '/\\evil.com',
    '/\t/evil.com',
    '/\n/evil.com',
    '//evil.com',
    '///evil.com',
    '\\\\evil.com',
    'https://evil.com',
    'HTTPS://evil.com/account',
    'javascript:alert(1)',
    ' /account',
    'account',
    '',
  ])('answers the default for %j, never an off-site or scheme-relative target', (hostile) => {
    expect(safeReturnTo(hostile)).toBe('/account')
  })

  it('normalises dot segments to a same-origin path (/./%2e/evil.com is the path /evil.com)', () => {
    expect(safeReturnTo('/./%2e/evil.com')).toBe('/evil.com')
  })

  it('answers the default for anything that is not a string, and the caller\'s default when given', () => {
    expect(safeReturnTo(undefined)).toBe('/account')
    expect(safeReturnTo(['/tokens'])).toBe('/account')
    expect(safeReturnTo('//evil.com', '/login')).toBe('/login')
  })

  it('is idempotent and always answers a same-origin path, whatever hostile path it is given', () => {
    // segments joined by separators, weighted towards `/` and dot or empty segments so that
    // `/.//x`-like paths (the ones a single normalisation turns into `//x`) come up often
    const weighted = <T>(common: T[], rare: T[]) =>
      fc.oneof({ arbitrary: fc.constantFrom(...common), weight: 3 }, { arbitrary: fc.constantFrom(...rare), weight: 1 })
    const segment = weighted(
      ['', '.', '..', '%2e', '%2E', '%2e%2e', '.%2e'],
      ['evil.com', '@evil.com', 'a', ':', 'https:', 'javascript:alert(1)', '\t', '\n', '?x', '#y', '%', '%00', ' '],
    )
    const separator = weighted(['/'], ['\\', '%2f', '%2F', '%5c', '%5C', '\t/'])
    const start = weighted(['/'], ['', '//', '/\\', '\\'])
    const path = fc
      .tuple(start, fc.array(fc.tuple(segment, separator), { maxLength: 8 }), segment)
      .map(([head, parts, last]) => head + parts.map(([part, sep]) => part + sep).join('') + last)
    fc.assert(
      fc.property(fc.oneof(path, fc.string({ maxLength: 40 })), (input) => {
        const once = safeReturnTo(input)
        expect(safeReturnTo(once)).toBe(once)
        expectSafe(once)
      }),
      { numRuns: 2000 },
    )
  })
})
