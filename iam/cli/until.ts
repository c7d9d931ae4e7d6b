/** `--until` of users:ban: an ISO date/time or a duration from now (30m, 12h, 7d); absent = indefinitely. */
import { CliFailure } from './output'

// "Indefinitely" is a date all the same: the ban column is a timestamp, and a year 9999 ban needs no special case.
const INDEFINITELY = new Date('9999-12-31T00:00:00.000Z')
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

export function parseUntil(value: string | undefined, now: number): Date {
  if (value === undefined || value === '') return INDEFINITELY
  const duration = /^(\d{1,6})([mhd])$/.exec(value)
  if (duration) return new Date(now + Number(duration[1]) * (UNIT_MS[duration[2] ?? 'd'] ?? 0))
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value)) throw new CliFailure(`--until: expected an ISO date/time or 30m, 12h, 7d, not ${value}`)
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) throw new CliFailure(`--until: not a valid date: ${value}`)
  return date
}
