/** The pages' shared wording: moments to the minute (composables/format-when.ts) and failure banners (composables/useBff.ts). */
import { describe, expect, it } from 'vitest'
import { formatWhen } from '../../composables/format-when'
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

describe('failure banners', () => {
  const validation = { status: 400, body: { ok: false, error: 'Validation failed', fields: { email: 'Enter a valid email address.' } } }

  it('never shows the IAM\'s "Validation failed" title to a person', () => {
    expect(describeFailure(validation)).toBe('Enter a valid email address.')
    expect(describeFailure({ status: 400, body: { ok: false, error: 'Validation failed' } })).toBe('Please check the form and try again.')
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
