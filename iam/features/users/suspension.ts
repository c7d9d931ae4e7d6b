/**
 * A suspension (an account's ban) as people read it: its end and its reason. A ban "until lifted"
 * is stored as a far date, so every check stays the one comparison `banned_until > now`
 * (login-service.ts, the token verification); readers get `until: null` for it instead of a date
 * in the year 9999. A ban whose end has passed is no ban: the person signs in again without an
 * administrator's step.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'

/** The stored end of a ban until lifted (the CLI's users:ban without --until means the same). */
export const UNTIL_LIFTED = new Date('9999-12-31T00:00:00.000Z')

/** Any end from this year on reads as "until lifted" (bans from before this file stored the same date). */
const LIFTED_FROM_YEAR = 9999

export interface SuspensionView {
  /** ISO 8601 end; null: until an administrator lifts it */
  until: string | null
  /** the administrator's reason; null for a ban without one (made before reasons were asked for) */
  reason: string | null
}

/** The view of a ban, or null when the account is not suspended at `now`. */
export function suspensionOf(row: { banned_until: Date | null; ban_reason: string | null }, now: number): SuspensionView | null {
  if (!row.banned_until || row.banned_until.getTime() <= now) return null
  const lifted = row.banned_until.getUTCFullYear() >= LIFTED_FROM_YEAR
  return { until: lifted ? null : row.banned_until.toISOString(), reason: row.ban_reason }
}

/** The account's suspension at `now` (read only when a sign-in was refused for it). */
export async function findSuspension(db: Kysely<Database> | Transaction<Database>, userId: number, now: number): Promise<SuspensionView | null> {
  const row = await db.selectFrom('users').select(['banned_until', 'ban_reason']).where('id', '=', userId).executeTakeFirst()
  return row ? suspensionOf(row, now) : null
}
