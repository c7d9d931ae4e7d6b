/**
 * A person's time zone, as the browser names it (`Intl.DateTimeFormat().resolvedOptions().timeZone`,
 * an IANA Time Zone Database name such as `Europe/Berlin`): the gateway's pages keep it in the
 * `time_zone` cookie and the gateway passes it to the IAM in the `X-Time-Zone` header
 * (server/utils/bff/iam-call.ts), as the language travels in Accept-Language. The IAM keeps it on
 * the account (users.time_zone, written at sign-up and sign-in) and writes the moments of its mails
 * in it (iam/features/mail/format.ts). Pure: the gateway and the IAM share it.
 */

/** The cookie the pages write (plugins/time-zone.client.ts) and the header the gateway sends. */
export const TIME_ZONE_COOKIE = 'time_zone'
export const TIME_ZONE_HEADER = 'x-time-zone'

/** No IANA name is longer ("America/Argentina/ComodRivadavia" is 32); more is not a zone. */
export const TIME_ZONE_MAX = 64

// IANA names are ASCII letters, digits, `_`, `-`, `+` and `/` (tz-link.html "Names of timezones");
// this also keeps out the UTC offsets ("+01:00") newer engines take as zones, which name no place
const NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/

const known = new Map<string, string | null>()

/**
 * The IANA name of `value` when the runtime knows that zone, else null: never throws, so an unknown
 * or hostile value is ignored, not an error. Intl.DateTimeFormat is the judge (a RangeError for an
 * unknown zone) rather than Intl.supportedValuesOf, which leaves out `UTC` and the current names of
 * renamed zones. The spelling: the runtime's for a name that differs from it in case only
 * (`europe/berlin` is `Europe/Berlin`), else the name as sent, since ICU answers the old name of a
 * renamed zone (`Asia/Katmandu` for the `Asia/Kathmandu` a browser names) and the mail shows it.
 */
export function readTimeZone(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > TIME_ZONE_MAX || !NAME.test(value)) return null
  const cached = known.get(value)
  if (cached !== undefined) return cached
  let zone: string | null
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone
    zone = resolved.toLowerCase() === value.toLowerCase() ? resolved : value
  } catch {
    zone = null
  }
  // the names are few (about 600 with aliases); a flood of made-up ones is not cached
  if (zone !== null && known.size < 2000) known.set(value, zone)
  return zone
}
