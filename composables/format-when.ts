/**
 * The one way pages show a moment to a person: date and time to the minute in the browser's locale
 * and time zone ("2 Jan 2026, 04:04"). Seconds are noise in a list of sign-ins and tokens, and the
 * exact instant stays in the `<time datetime>` attribute for anyone who needs it.
 */
const FORMAT: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }

/** A timestamp for people, or a dash when there is none; an unparsable value is shown as it came. */
export function formatWhen(value: string | null | undefined, locale?: string): string {
  if (!value) return '—'
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString(locale, FORMAT)
}
