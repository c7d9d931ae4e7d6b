/**
 * Sign-ups and refused bot checks per hour, as the admin console shows them (GET
 * /admin/stats/signups): the accounts created in each of the last `hours` UTC hours (the current
 * one included, so far) and the bot checks refused in them (features/bot-challenge/failure-tally.ts),
 * by reason. Two range reads over indexes (users_created_idx, the counters' primary key, migration
 * 0024), whatever the number of accounts outside the range. Both may lag: a chart an administrator
 * looks at is as good a few seconds old.
 *
 * An account is counted by its creation time while it exists: an erased account no longer counts,
 * and an imported one counts in the hour its source created it (docs/import.md).
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { mayLag } from '../../db/replicas'
import { COUNTED_BOT_FAILURES, HOUR_MS, hourStartMs, type CountedBotFailure } from '../bot-challenge/failure-tally'

export interface SignupStatsHour {
  /** the start of the hour, ISO 8601 UTC */
  hour: string
  signups: number
  challengesFailed: number
  failures: Record<CountedBotFailure, number>
}

export interface SignupStats {
  /** oldest first, one entry per hour, empty hours included */
  perHour: SignupStatsHour[]
  totals: { signups: number; challengesFailed: number }
}

const noFailures = (): Record<CountedBotFailure, number> => ({ missing: 0, invalid: 0, expired: 0, replayed: 0 })

/** The last `hours` hours up to ctx.now(): the current hour is the last entry. */
export async function signupStats(ctx: Pick<IamContext, 'db' | 'now'>, hours: number): Promise<SignupStats> {
  const endMs = hourStartMs(ctx.now()) + HOUR_MS
  const startMs = endMs - hours * HOUR_MS
  const start = new Date(startMs)
  const end = new Date(endMs)
  const read = mayLag(ctx.db) // may lag: statistics an administrator reads
  const [signups, failures] = await Promise.all([
    sql<{ hour_ms: string | number; signups: string | number }>`select (floor(extract(epoch from created_at) / 3600) * 3600000)::bigint as hour_ms, count(*) as signups
      from users where created_at >= ${start} and created_at < ${end} group by 1`.execute(read),
    read.selectFrom('bot_check_failures').select(['hour', 'reason', 'failures']).where('hour', '>=', start).where('hour', '<', end).execute(),
  ])
  const perHour: SignupStatsHour[] = []
  const byHour = new Map<number, SignupStatsHour>()
  for (let ms = startMs; ms < endMs; ms += HOUR_MS) {
    const entry = { hour: new Date(ms).toISOString(), signups: 0, challengesFailed: 0, failures: noFailures() }
    perHour.push(entry)
    byHour.set(ms, entry)
  }
  for (const row of signups.rows) {
    const entry = byHour.get(Number(row.hour_ms))
    if (entry) entry.signups = Number(row.signups)
  }
  for (const row of failures) {
    const entry = byHour.get(new Date(row.hour).getTime())
    if (!entry || !COUNTED_BOT_FAILURES.includes(row.reason)) continue
    entry.failures[row.reason] += Number(row.failures)
    entry.challengesFailed += Number(row.failures)
  }
  const totals = { signups: 0, challengesFailed: 0 }
  for (const entry of perHour) {
    totals.signups += entry.signups
    totals.challengesFailed += entry.challengesFailed
  }
  return { perHour, totals }
}
