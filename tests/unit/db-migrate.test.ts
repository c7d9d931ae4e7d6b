// Several instances may start at once against one PostgreSQL database (dev profile: migrations on
// start): concurrent migrateToLatest calls must apply each migration exactly once and all succeed.
// Going back one release meets a database a later release migrated: its migrations are left as
// they are (docs/operations.md, "Rolling upgrades"), while a history that differs is refused.
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../../iam/db/database'
import { migrations } from '../../iam/db/migrations/index'
import { connectDatabase, createMigratedDatabase, createThrowawayPg, DATABASE_URL } from '../helpers/test-database'
import { skippedWithout, titled } from '../helpers/skip-notes'

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

// PostgreSQL only when DATABASE_URL names a server; PGlite is one process's own database.
describe.skipIf(skippedWithout('postgres'))(titled('migrateToLatest on PostgreSQL', 'postgres'), () => {
  it('applies each migration once when three connections migrate at the same time', async () => {
    const pg = await createThrowawayPg(DATABASE_URL!)
    cleanups.push(() => pg.drop())
    const dbs = await Promise.all([1, 2, 3].map(() => connectDatabase(pg.url)))
    cleanups.push(async () => void (await Promise.all(dbs.map((db) => db.destroy()))))

    const results = await Promise.all(dbs.map((db) => migrateToLatest(db)))
    const applied = results.flatMap((r) => r.results ?? []).filter((r) => r.status === 'Success')
    expect(applied.map((r) => r.migrationName)).toEqual(Object.keys(migrations))

    const rows = await dbs[0].selectFrom('iam_migrations' as never).select('name' as never).execute()
    expect(rows).toEqual(Object.keys(migrations).map((name) => ({ name })))
    // the schema is usable from every connection
    for (const db of dbs) expect(await db.selectFrom('users').select('id').execute()).toEqual([])
  })
})

describe('migrateToLatest on a database a later release migrated', () => {
  // one migrated database for both rules (a PGlite start costs seconds): each test records its own rows and takes them out
  let db: Awaited<ReturnType<typeof connectDatabase>>
  beforeAll(async () => {
    if (!DATABASE_URL) {
      db = await createMigratedDatabase({ database: { url: 'memory://' }, service: { dataDir: '.data' } as never })
    } else {
      const pg = await createThrowawayPg(DATABASE_URL)
      cleanups.push(() => pg.drop())
      db = await connectDatabase(pg.url)
      await migrateToLatest(db)
    }
    cleanups.push(() => db.destroy())
  })
  afterEach(async () => {
    await sql`delete from iam_migrations where name like '9999-%' or name like '2000-%'`.execute(db)
  })
  const record = (name: string) => sql`insert into iam_migrations (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(db)

  it('leaves the later release migrations as they are, names them, and applies nothing', async () => {
    await record('9999-12-30-0001-from-a-later-release')
    await record('9999-12-31-0002-from-a-later-release')
    const result = await migrateToLatest(db)
    expect(result.newer).toEqual(['9999-12-30-0001-from-a-later-release', '9999-12-31-0002-from-a-later-release'])
    expect(result.results).toEqual([])
  })

  it('still refuses an unknown migration older than this release newest one (a history that differs)', async () => {
    await record('2000-01-01-0000-never-in-this-history')
    await expect(migrateToLatest(db)).rejects.toThrow(/2000-01-01-0000-never-in-this-history/)
  })
})
