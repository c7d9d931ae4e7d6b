/**
 * session_families by user (see docs/performance.md): every signed-in request and every refresh counts the user's
 * live and recent sessions (anomaly checks 5 and 6) over ALL of the user's families, revoked ones
 * included. The only index by user was partial (`where revoked_at is null`), which that count cannot
 * use, so each request scanned the whole table: 81 ms at 400,000 families against 0.1 ms with this
 * index (EXPLAIN ANALYZE, PostgreSQL 15).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index session_families_user_idx on session_families (user_id, created_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index session_families_user_idx`.execute(db)
}
