/** The pages' shared wording: moments to the minute (composables/format-when.ts) and failure banners (composables/useBff.ts). */
import { describe, expect, it } from 'vitest'
import { formatDay, formatWhen, formatWhenRelative } from '../../composables/format-when'
import { describeFailure, formFailure } from '../../composables/useBff'

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

describe('failure banners', () => {
  const validation = { status: 400, body: { ok: false, error: 'Validation failed', code: 'validation_failed' as const, fields: { email: 'Enter a valid email address.' } } }

  it('never shows the IAM\'s "Validation failed" title to a person', () => {
    expect(describeFailure(validation)).toBe('Enter a valid email address.')
    expect(describeFailure({ status: 400, body: { ok: false, error: 'Validation failed', code: 'validation_failed', fields: {} } })).toBe('Please check the form and try again.')
    // decided on the code: the same title without it is shown as it is
    expect(describeFailure({ status: 400, body: { ok: false, error: 'Validation failed' } })).toBe('Validation failed')
    // the gateway's own refusal of a malformed request carries its sentence, and no fields
    expect(describeFailure({ status: 400, body: { ok: false, error: 'That search is not valid.', code: 'validation_failed' } })).toBe('That search is not valid.')
  })

  it('shows no banner when every field message is beside its field on the form', () => {
    expect(formFailure(validation, ['email', 'password'])).toBeNull()
  })

  it('puts a field message the form has no field for into the banner', () => {
    expect(formFailure(validation, ['password'])).toBe('Enter a valid email address.')
  })

  it('leaves other failures to describeFailure', () => {
    expect(formFailure({ status: 429, body: { ok: false, retry: 30 } }, ['email'])).toBe('Too many attempts. Try again in 30 seconds.')
  })
})

describe('a 429 says what happened and when to try again', () => {
  const lock = 'Too many wrong codes for this account. Code entry is locked; try again in 14 minutes.'

  it('shows the IAM\'s own sentence for a locked code entry, which names the lock and its end', () => {
    expect(describeFailure({ status: 429, body: { ok: false, error: 'Too many requests', retry: 840, message: lock } })).toBe(lock)
  })

  it('reads a wait that arrived as the Retry-After header\'s digits', () => {
    expect(describeFailure({ status: 429, body: { ok: false, error: 'Too many requests', retry: '840' } })).toBe('Too many attempts. Try again in 14 minutes.')
  })
})
