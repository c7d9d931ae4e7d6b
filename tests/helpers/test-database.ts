/**
 * Databases for the database unit tests: PGlite in memory, or a throwaway PostgreSQL database
 * created next to DATABASE_URL (like iam-server.ts does for each IAM) and dropped afterwards.
 */
import { randomBytes } from 'node:crypto'
import { cpSync, readFileSync } from 'node:fs'
import type { Kysely } from 'kysely'
import { createDatabase, migrateToLatest, replaceMemoryTemplate } from '../../iam/db/database'
import type { Database } from '../../iam/db/schema'
import { configSchema } from '../../iam/lib/config-schema'

export const DATABASE_URL = process.env.DATABASE_URL

/**
 * Makes `dir` a migrated PGlite data directory, a copy of the run's template (TEST_PGLITE_DIR_TEMPLATE,
 * tests/helpers/pglite-template.ts), and returns `file://dir`: an IAM or CLI on it starts without
 * an on-disk initdb and migrations. Without the template (a run on DATABASE_URL) `dir` stays as it
 * is and the IAM creates the database itself.
 */
export function migratedPgliteDir(dir: string): string {
  const template = process.env.TEST_PGLITE_DIR_TEMPLATE
  if (template) cpSync(template, dir, { recursive: true })
  return `file://${dir}`
}

/**
 * createDatabase and migrateToLatest, for unit files that need a migrated database (not a test of
 * the migrations): an in-memory PGlite loads the run's migrated dump (IAM_TEST_PGLITE_TEMPLATE,
 * tests/helpers/pglite-template.ts, a globalSetup of the unit project) instead of running initdb and
 * every migration, as the IAM test build does. The dump is handed over for this one creation only:
 * a later file in the same worker (the unit project reuses workers) still gets an empty database.
 */
export async function createMigratedDatabase(config: Parameters<typeof createDatabase>[0]): Promise<Kysely<Database>> {
  const template = process.env.IAM_TEST_PGLITE_TEMPLATE
  if (template && config.database.url === 'memory://') replaceMemoryTemplate(() => new Blob([readFileSync(template)]))
  let db: Kysely<Database>
  try {
    db = await createDatabase(config)
  } finally {
    replaceMemoryTemplate(() => undefined)
  }
  // nothing to do on the dump (unless a migration is newer than it); all of them on an empty database
  await migrateToLatest(db)
  return db
}

/** Runs one statement on the PostgreSQL database at `url`, on a connection of its own. */
export async function runOnPg(url: string, statement: string): Promise<void> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Creates an empty PostgreSQL database; `drop` removes it (and any open connections to it). */
export async function createThrowawayPg(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `iam_test_${randomBytes(6).toString('hex')}`
  const admin = (statement: string) => runOnPg(baseUrl, statement)
  await admin(`create database ${name}`)
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) }
}

export interface TestDatabase {
  db: Kysely<Database>
  /** the database URL, to open more connections to the same database */
  url: string
  close(): Promise<void>
}

/** Opens an empty database of `kind` (not migrated). */
/** Opens the database at `url` the way the IAM does (same dialect choice, plugins and parsers). */
export const connectDatabase = (url: string) => createDatabase(configSchema.parse({ database: { url } }))

export async function openTestDatabase(kind: 'pglite' | 'postgres'): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const db = await connectDatabase('memory://')
    return { db, url: 'memory://', close: () => db.destroy() }
  }
  if (!DATABASE_URL) throw new Error('DATABASE_URL is not set')
  const pg = await createThrowawayPg(DATABASE_URL)
  const db = await connectDatabase(pg.url)
  return {
    db,
    url: pg.url,
    close: async () => {
      await db.destroy()
      await pg.drop()
    },
  }
}
