// Several instances may start at once against one PostgreSQL database (dev profile: migrations on
// start): concurrent migrateToLatest calls must apply each migration exactly once and all succeed.
import { afterAll, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../../iam/db/database'
import { migrations } from '../../iam/db/migrations/index'
import { connectDatabase, createThrowawayPg, DATABASE_URL } from '../helpers/test-database'

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

// PostgreSQL only when DATABASE_URL names a server; PGlite is one process's own database.
describe.skipIf(!DATABASE_URL)('migrateToLatest on PostgreSQL', () => {
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
