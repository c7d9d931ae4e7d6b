/**
 * What the lock-order tests share (tests/unit/*-lock-order.test.ts): two connections to one
 * throwaway, migrated PostgreSQL database, and a wait until a statement of it waits for a row lock.
 * PostgreSQL only: PGlite serves one connection at a time.
 */
import { sql, type Kysely } from 'kysely'
import { migrateToLatest } from '../../iam/db/database'
import type { Database } from '../../iam/db/schema'
import { connectDatabase, createThrowawayPg, DATABASE_URL } from './test-database'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Two connections of a new migrated database on DATABASE_URL's server; `close` drops it. */
export async function twoConnections(): Promise<{ first: Kysely<Database>; second: Kysely<Database>; close(): Promise<void> }> {
  const pg = await createThrowawayPg(DATABASE_URL!)
  const [first, second] = await Promise.all([connectDatabase(pg.url), connectDatabase(pg.url)])
  const close = async () => {
    await Promise.all([first.destroy(), second.destroy()])
    await pg.drop()
  }
  try {
    await migrateToLatest(first)
  } catch (error) {
    await close()
    throw error
  }
  return { first, second, close }
}

/** Resolves once some statement of the database waits for a row lock (checked every 20 ms). */
export async function untilWaitingOnLock(db: Kysely<Database>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
    if (rows[0]!.n > 0) return
    await pause(20)
  }
  throw new Error('no statement ever waited for the lock')
}
