// Migration 0006 keeps each family's active refresh-token expiry on session_families, so the
// live-session count never reads refresh_tokens. Families that exist when it runs are backfilled
// from their active token: the count must give the same answer before and after the upgrade.
import { sql, type Kysely } from 'kysely'
import { Migrator } from 'kysely/migration'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { migrations } from '../../iam/db/migrations/index'
import { DATABASE_URL, openTestDatabase, type TestDatabase } from '../helpers/test-database'
import { titled } from '../helpers/skip-notes'

const BEFORE = '2026-11-25-0005-session-families-user-idx'

const kinds = [
  { kind: 'pglite' as const, skip: false, label: 'pglite' },
  // PostgreSQL only when DATABASE_URL names a server (the PostgreSQL + Redis run of the suite sets it)
  { kind: 'postgres' as const, skip: !DATABASE_URL, label: titled('postgres', 'postgres') },
]

describe.each(kinds)('session_families.refresh_expires_at backfill on $label', ({ kind, skip: noPostgresServer }) => {
  let t: TestDatabase
  let db: Kysely<Database>
  const migrator = () =>
    new Migrator({ db, provider: { getMigrations: async () => migrations }, migrationTableName: 'iam_migrations', migrationLockTableName: 'iam_migrations_lock' })

  beforeAll(async () => {
    if (noPostgresServer) return
    t = await openTestDatabase(kind)
    db = t.db
    expect((await migrator().migrateTo(BEFORE)).error).toBeUndefined()
  }, 60_000)
  afterAll(async () => {
    await t?.close()
  })

  // `skip`: the PostgreSQL kind runs only with DATABASE_URL (the suite's PostgreSQL + Redis run sets it)
  it.skipIf(noPostgresServer)('sets each family to its active token\'s expiry, and leaves families without one null', async () => {
    // the tables as the migration sees them, before the typed schema
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const old = db as unknown as Kysely<any>
    const { id: userId } = await old.insertInto('users').values({ email: 'backfill@example.com', name: 'n', roles: ['user'] }).returning('id').executeTakeFirstOrThrow()
    const { id: visitorId } = await old.insertInto('visitors').values({ canary_id: 'c-backfill', visitor_id: 'v-backfill' }).returning('id').executeTakeFirstOrThrow()
    const inAnHour = new Date(Date.now() + 3_600_000)
    const anHourAgo = new Date(Date.now() - 3_600_000)
    for (const id of ['active', 'expired', 'spent', 'revoked', 'empty']) {
      await old.insertInto('session_families').values({ id, user_id: userId, visitor_id: visitorId, revoked_at: id === 'revoked' ? anHourAgo : null }).execute()
    }
    const token = (family: string, status: string, expires: Date) => ({ family_id: family, token_hash: `${family}-${status}-${expires.getTime()}`, status, expires_at: expires })
    await old.insertInto('refresh_tokens').values([
      token('active', 'rotated', anHourAgo), token('active', 'rotated', inAnHour), token('active', 'active', inAnHour),
      token('expired', 'active', anHourAgo),
      token('spent', 'rotated', inAnHour),
      token('revoked', 'revoked', inAnHour),
    ]).execute()

    expect((await migrator().migrateToLatest()).error).toBeUndefined()

    const rows = await db.selectFrom('session_families').select(['id', 'refresh_expires_at']).where('user_id', '=', userId).orderBy('id').execute()
    expect(Object.fromEntries(rows.map((r) => [r.id, r.refresh_expires_at?.getTime() ?? null]))).toEqual({
      active: inAnHour.getTime(), expired: anHourAgo.getTime(), spent: null, revoked: null, empty: null,
    })
    // the live count on the column agrees with the count over refresh_tokens it replaces
    const { rows: [counts] } = await sql<{ byColumn: number; byTokens: number }>`
      select
        (select count(*)::int from session_families s where s.user_id = ${userId} and s.revoked_at is null and s.refresh_expires_at > now()) as "byColumn",
        (select count(*)::int from session_families s where s.user_id = ${userId} and s.revoked_at is null
          and exists (select 1 from refresh_tokens a where a.family_id = s.id and a.status = 'active' and a.expires_at > now())) as "byTokens"
    `.execute(db)
    expect(counts).toEqual({ byColumn: 1, byTokens: 1 })
  })
})
