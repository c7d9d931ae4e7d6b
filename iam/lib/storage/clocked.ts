/**
 * The stored form of every value, on every driver: `<expiresAt ms>@<JSON>`. Expiry is judged by the
 * IAM's clock (`now`), not by the driver: the test build moves that clock, and instances must agree
 * on when a window or a ban ends. A driver's own expiry (Redis EX) only cleans up later: the IAM
 * clock never runs behind the wall clock, so it never drops a value the clock still considers alive.
 * The Redis scripts read and write the same form (atomic-redis.ts, CLOCKED_LUA).
 */

export type Clocked = { json: string; expiresAt: number }

/** A TTL is required on every write; a missing or absurd one is a bug, not a default. */
export function checkTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`store TTL must be a positive number of ms, got ${ttlMs}`)
  return Math.max(1, Math.round(ttlMs))
}

export function sealClocked(json: string, expiresAt: number): string {
  return `${Math.round(expiresAt)}@${json}`
}

/** The value and its expiry, or null when absent, not in the clocked form, or expired by `now`. */
export function openClocked(raw: unknown, now: number): Clocked | null {
  if (typeof raw !== 'string') return null
  const at = raw.indexOf('@')
  const expiresAt = at > 0 ? Number(raw.slice(0, at)) : Number.NaN
  if (!(expiresAt > now)) return null
  return { json: raw.slice(at + 1), expiresAt }
}

/** JSON back to a value; a value some other writer stored as plain text comes back as that text. */
export function parseJson(json: string): unknown {
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}
