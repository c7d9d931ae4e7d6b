import { describe, expect, it } from 'vitest'
import { suspensionDay } from '../../composables/suspension-words'

describe('suspensionDay', () => {
  it('reads an end as its day in words, in UTC', () => {
    expect(suspensionDay('2026-12-05T00:00:00.000Z')).toBe('5 December 2026')
    expect(suspensionDay('2026-12-05T23:30:00.000Z')).toBe('5 December 2026')
  })

  it('reads the day in the language asked for', () => {
    expect(suspensionDay('2026-12-05T23:30:00.000Z', 'de')).toBe('5. Dezember 2026')
    expect(suspensionDay('2026-12-05T00:00:00.000Z', 'ja')).toBe('2026年12月5日')
  })

  it('reads no end as no day, never as a date', () => {
    expect(suspensionDay(null)).toBeNull()
    expect(suspensionDay(undefined)).toBeNull()
    expect(suspensionDay('not a date')).toBeNull()
  })
})
