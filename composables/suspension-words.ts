/**
 * A suspension's end in words, one way for the console and the sign-in page: "until 5 December
 * 2026", or "until lifted" for one without an end (the IAM answers `until: null` for it, never a
 * date in the year 9999: iam/features/users/suspension.ts). Days are read in UTC, the zone the
 * console's "until a date" choice stores them in, so the day shown is the day chosen. `locale`
 * names the language of the day's words (Intl); the words around it are the caller's.
 */
export function suspensionDay(until: string | null | undefined, locale = 'en-GB'): string | null {
  if (!until) return null
  const date = new Date(until)
  return Number.isNaN(date.getTime()) ? null : new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(date)
}
