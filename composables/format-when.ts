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

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS

/**
 * A recent moment as a person says it, in `locale` ("now", "5 minutes ago", "3 hours ago"); from a day back,
 * or in the future (a skewed clock), the `formatWhen` date, since "36 hours ago" makes people count.
 */
export function formatWhenRelative(value: string | null | undefined, nowMs: number, locale?: string): string {
  if (!value) return formatWhen(value, locale)
  const agoMs = nowMs - new Date(value).getTime()
  if (Number.isNaN(agoMs) || agoMs < 0 || agoMs >= DAY_MS) return formatWhen(value, locale)
  const words = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
  // under a minute: the language's own "now" (Intl's zero seconds with numeric "auto")
  if (agoMs < MINUTE_MS) return words.format(0, 'second')
  return agoMs < HOUR_MS ? words.format(-Math.floor(agoMs / MINUTE_MS), 'minute') : words.format(-Math.floor(agoMs / HOUR_MS), 'hour')
}

/**
 * A day in words ("5 December 2026"), in the browser's time zone: for a date a person plans
 * around (when an account is erased), where the time of day is noise. Day, month name and year
 * read the same to every reader, which 05/12/2026 does not; the words are English like the pages.
 */
export function formatDay(value: string, locale = 'en-GB'): string {
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toLocaleDateString(locale, { day: 'numeric', month: 'long', year: 'numeric' })
}
