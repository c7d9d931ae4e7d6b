/**
 * When a failed delivery is tried again: the configured waits (webhooks.retryScheduleMs, by default
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h after the first attempt sent at once),
 * each stretched by up to `jitter` at random so that the retries after an outage do not all arrive
 * together; a receiver's Retry-After (RFC 9110 section 10.2.3), when longer, wins, up to a day. Pure: time and randomness come in.
 */

/** The longest Retry-After obeyed: a receiver cannot push a delivery further than a day per attempt. */
export const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000

export type NextStep = { kind: 'retry'; atMs: number } | { kind: 'dead' }

/**
 * What follows the `attempts`-th failed attempt (1 for the first).
 * `random` in [0, 1): the jitter's draw.
 */
export function nextAttempt(input: { attempts: number; nowMs: number; scheduleMs: readonly number[]; jitter: number; retryAfterMs: number | null; random: number }): NextStep {
  const wait = input.scheduleMs[input.attempts - 1]
  if (wait === undefined) return { kind: 'dead' }
  const jittered = Math.round(wait * (1 + input.jitter * input.random))
  const asked = input.retryAfterMs === null ? 0 : Math.min(input.retryAfterMs, RETRY_AFTER_MAX_MS)
  return { kind: 'retry', atMs: input.nowMs + Math.max(jittered, asked) }
}

/**
 * Retry-After as milliseconds from `nowMs`: delay-seconds or an HTTP-date (RFC 9110 section
 * 10.2.3); null when absent or not understood.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const text = Array.isArray(value) ? value[0] : value
  if (!text) return null
  const trimmed = text.trim()
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000
  // an HTTP-date names its day and month (IMF-fixdate and the obsolete forms): a bare number such
  // as `-5` or `1.5`, which Date.parse would take for a year, is not one
  if (!/[A-Za-z]{3}/.test(trimmed)) return null
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return null
  return Math.max(0, date - nowMs)
}
