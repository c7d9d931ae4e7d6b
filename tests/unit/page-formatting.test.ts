/** The pages' shared wording: moments to the minute (composables/format-when.ts). Failure banners: tests/components/failure-languages.test.ts. */
import { describe, expect, it } from 'vitest'
import { formatDay, formatWhen, formatWhenRelative } from '../../composables/format-when'

describe('formatWhen', () => {
  it('shows the date and the time to the minute, never the seconds', () => {
    const shown = formatWhen('2026-01-02T03:04:05.000Z', 'en-GB')
    expect(shown).toMatch(/^2 Jan 2026, \d{2}:\d{2}$/)
    expect(shown).not.toContain(':05')
  })

  it('shows a dash for no moment and an unparsable value as it came', () => {
    expect(formatWhen(null)).toBe('—')
    expect(formatWhen('soon')).toBe('soon')
  })
})

describe('formatDay', () => {
  it('says the day in words, day first, without the time (noon UTC: the same day in every time zone)', () => {
    expect(formatDay('2026-12-05T12:00:00.000Z')).toBe('5 December 2026')
  })

  it('shows an unparsable value as it came', () => {
    expect(formatDay('soon')).toBe('soon')
  })
})

describe('formatWhenRelative', () => {
  const now = Date.parse('2026-01-02T12:00:00.000Z')
  const ago = (ms: number) => new Date(now - ms).toISOString()

  it('says a moment within the last day in words', () => {
    expect(formatWhenRelative(ago(20_000), now, 'en')).toBe('now')
    expect(formatWhenRelative(ago(60_000), now, 'en')).toBe('1 minute ago')
    expect(formatWhenRelative(ago(59 * 60_000), now, 'en')).toBe('59 minutes ago')
    expect(formatWhenRelative(ago(23 * 3_600_000 + 59 * 60_000), now, 'en')).toBe('23 hours ago')
  })

  it('says it in the language asked for, its own word for now included', () => {
    expect(formatWhenRelative(ago(20_000), now, 'de')).toBe('jetzt')
    expect(formatWhenRelative(ago(5 * 60_000), now, 'fr')).toBe('il y a 5 minutes')
  })

  it('falls back to the date from a day back, for a future moment and for no moment', () => {
    expect(formatWhenRelative(ago(24 * 3_600_000), now, 'en-GB')).toBe(formatWhen(ago(24 * 3_600_000), 'en-GB'))
    expect(formatWhenRelative(ago(-60_000), now, 'en-GB')).toBe(formatWhen(ago(-60_000), 'en-GB'))
    expect(formatWhenRelative(null, now)).toBe('—')
  })
})
