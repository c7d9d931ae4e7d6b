/**
 * Breached-password check through the k-anonymity range API (HIBP-compatible): only the first 5 hex
 * characters of the SHA-1 leave the process; `Add-Padding: true` hides the answer size. Results are
 * cached per prefix for a short time.
 *
 * Two kinds of failure, treated differently: a service that cannot be reached (network error,
 * timeout) is what `failOpen` decides; a service that answers, but not a 200 in the range format
 * (404 from a wrong base URL, 500, a captive portal's HTML page), is always a failed check. Passing
 * such an answer would silently switch the check off for every password.
 */
import { createHash } from 'node:crypto'
import { normalizePassword } from './hasher'

export interface BreachCheckSettings {
  enabled: boolean
  rangeApiUrl: string
  failOpen: boolean
  timeoutMs: number
}

/**
 * clean also covers a check switched off by config; unchecked = the service could not be reached and
 * `failOpen` let the password through (the person is told, password-service.ts); unavailable = the
 * check could not be made and the password is refused.
 */
export type BreachResult = 'clean' | 'breached' | 'unchecked' | 'unavailable'

/**
 * Failed checks since the process started, by kind (read by tests and, later, metrics).
 * `unreachable`: network error or timeout; `badAnswer`: a status other than 200 or a body not in the
 * range format.
 */
export const breachCheckFailures = { unreachable: 0, badAnswer: 0 }

const CACHE_MS = 5 * 60_000
const CACHE_MAX = 1000
const cache = new Map<string, { body: string; at: number }>()

/** One warning per minute at most: an outage during a signup wave must not flood the log. */
const WARN_INTERVAL_MS = 60_000
let lastWarnAtMs = Number.NEGATIVE_INFINITY

// A range line: the 35 hex characters after the prefix, a colon, a count (padding lines count 0).
const RANGE_LINE = /^[0-9A-Fa-f]{35}:\d+$/

class BadRangeAnswer extends Error {
  override name = 'BadRangeAnswer'
}

/**
 * `<base>/<prefix>` whether or not the configured base ends with a slash; a query string in the
 * base is kept.
 */
export function rangeUrl(base: string, prefix: string): string {
  const url = new URL(base)
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${prefix}`
  return url.toString()
}

/** The lines of a range answer, or null when any non-empty line is not `<35 hex>:<count>`. */
export function parseRangeBody(body: string): { suffix: string; count: number }[] | null {
  const entries: { suffix: string; count: number }[] = []
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim()
    if (!line) continue
    if (!RANGE_LINE.test(line)) return null
    const [suffix, count] = line.split(':') as [string, string]
    entries.push({ suffix: suffix.toUpperCase(), count: Number(count) })
  }
  return entries
}

async function fetchRange(settings: BreachCheckSettings, prefix: string, fetchImpl: typeof fetch, nowMs: number): Promise<string> {
  const url = rangeUrl(settings.rangeApiUrl, prefix)
  const hit = cache.get(url)
  if (hit && nowMs - hit.at < CACHE_MS) return hit.body
  const res = await fetchImpl(url, {
    headers: { 'Add-Padding': 'true', 'User-Agent': 'identity-platform-iam' },
    signal: AbortSignal.timeout(settings.timeoutMs),
  })
  // The body is read under the same timeout signal: a stalled body is a timeout, not a bad answer.
  const body = await res.text()
  if (res.status !== 200) throw new BadRangeAnswer(`range API answered ${res.status}`)
  if (parseRangeBody(body) === null) throw new BadRangeAnswer('range API answer is not in the range format')
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string)
  cache.set(url, { body, at: nowMs })
  return body
}

/**
 * Whether the password appears in the breach corpus (count > 0). `unavailable` when the service
 * gave a bad answer, or could not be reached and `failOpen` is false.
 */
export async function checkBreachedPassword(
  password: string,
  settings: BreachCheckSettings,
  warn: (msg: string, fields: Record<string, unknown>) => void,
  fetchImpl: typeof fetch = fetch,
  now: () => number = Date.now,
): Promise<BreachResult> {
  if (!settings.enabled) return 'clean'
  const sha1 = createHash('sha1').update(normalizePassword(password), 'utf8').digest('hex').toUpperCase()
  const prefix = sha1.slice(0, 5)
  const suffix = sha1.slice(5)
  try {
    const entries = parseRangeBody(await fetchRange(settings, prefix, fetchImpl, now())) ?? []
    return entries.some((e) => e.suffix === suffix && e.count > 0) ? 'breached' : 'clean'
  } catch (error) {
    const badAnswer = error instanceof BadRangeAnswer
    breachCheckFailures[badAnswer ? 'badAnswer' : 'unreachable']++
    const allowed = !badAnswer && settings.failOpen
    if (now() - lastWarnAtMs >= WARN_INTERVAL_MS) {
      lastWarnAtMs = now()
      warn(badAnswer ? 'breach check failed: bad answer from the range API' : 'breach check failed: range API unreachable', {
        error: (error as Error).message,
        outcome: allowed ? 'password allowed (failOpen)' : 'password refused',
        failures: { ...breachCheckFailures },
      })
    }
    return allowed ? 'unchecked' : 'unavailable'
  }
}
