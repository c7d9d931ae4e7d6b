/**
 * The databases the data-layer equivalence tests run on: a migrated PGlite in memory, and (with
 * DATABASE_URL) a migrated throwaway PostgreSQL database opened the way the IAM opens it.
 */
import type { Kysely } from 'kysely'
import { afterAll, beforeAll } from 'vitest'
import { createDatabase, migrateToLatest } from '../../iam/db/database'
import type { Database } from '../../iam/db/schema'
import { createMigratedDatabase, createThrowawayPg, DATABASE_URL } from '../helpers/test-database'
import { titled } from '../helpers/skip-notes'

export const KINDS = [
  // PGlite in the embedded run; a run with DATABASE_URL (CI's PostgreSQL + Redis run) tests the
  // server instead: the PGlite answers do not depend on it, and `npm test` without it checks them
  { kind: 'pglite' as const, skip: Boolean(DATABASE_URL), label: titled('pglite', 'pglite') },
  // PostgreSQL only when DATABASE_URL names a server (the suite's PostgreSQL + Redis run sets it)
  { kind: 'postgres' as const, skip: !DATABASE_URL, label: titled('postgres', 'postgres') },
]

export interface DataLayerDb {
  db: Kysely<Database>
  /** the PostgreSQL database's URL (undefined on PGlite), to open it again with other options */
  url?: string
  close(): Promise<void>
}

const SERVICE = { dataDir: '.data' } as never

export async function openDataLayerDb(kind: 'pglite' | 'postgres'): Promise<DataLayerDb> {
  if (kind === 'pglite') {
    const db = await createMigratedDatabase({ database: { url: 'memory://' }, service: SERVICE })
    return { db, close: () => db.destroy() }
  }
  const pg = await createThrowawayPg(DATABASE_URL!)
  const db = await createDatabase({ database: { url: pg.url }, service: SERVICE })
  try {
    await migrateToLatest(db)
  } catch (error) {
    await db.destroy()
    await pg.drop()
    throw error
  }
  return {
    db,
    url: pg.url,
    close: async () => {
      await db.destroy()
      await pg.drop()
    },
  }
}

/**
 * The suite's database: opened before its tests (not at all when `skip`), closed after them. The
 * object is filled in by beforeAll, so a test reads it as it is at that time.
 */
export function dataLayerDbForSuite(kind: 'pglite' | 'postgres', skip: boolean): DataLayerDb {
  const opened = {} as DataLayerDb
  beforeAll(async () => {
    if (!skip) Object.assign(opened, await openDataLayerDb(kind))
  }, 120_000)
  afterAll(async () => {
    await opened.close?.()
  })
  return opened
}
