import { describe, expect, it } from 'vitest'
import { suspensionEnd } from '../../composables/suspension-words'

describe('suspensionEnd', () => {
  it('reads an end as its day in words, in UTC', () => {
    expect(suspensionEnd('2026-12-05T00:00:00.000Z')).toBe('until 5 December 2026')
    expect(suspensionEnd('2026-12-05T23:30:00.000Z')).toBe('until 5 December 2026')
  })

  it('reads no end as until lifted, never as a date', () => {
    expect(suspensionEnd(null)).toBe('until lifted')
    expect(suspensionEnd(undefined)).toBe('until lifted')
    expect(suspensionEnd('not a date')).toBe('until lifted')
  })
})
