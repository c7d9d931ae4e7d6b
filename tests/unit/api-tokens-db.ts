/**
 * A fresh database for library tests: PGlite in memory, or (with DATABASE_URL) a new PostgreSQL
 * database dropped at the end. Plus a user row inserted directly and a log capture.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { createDatabase, migrateToLatest } from '../../iam/db/database'
import type { Database } from '../../iam/db/schema'
import { createLogger, type Logger } from '../../shared/log'
import { createMigratedDatabase } from '../helpers/test-database'

export type TestDb = { db: Kysely<Database>; kind: 'pglite' | 'postgres'; close(): Promise<void> }

export async function openTestDb(): Promise<TestDb> {
  const base = process.env.DATABASE_URL
  if (!base) {
    const db = await createMigratedDatabase({ database: { url: 'memory://' }, service: { dataDir: '.data' } as never })
    return { db, kind: 'pglite', close: () => db.destroy() }
  }
  const { default: pg } = await import('pg')
  const name = `iam_lib_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  const db = await createDatabase({ database: { url: url.toString() }, service: { dataDir: '.data' } as never })
  await migrateToLatest(db)
  return {
    db,
    kind: 'postgres',
    close: async () => {
      await db.destroy()
      const drop = new pg.Client({ connectionString: base })
      await drop.connect()
      await drop.query(`drop database if exists ${name} with (force)`)
      await drop.end()
    },
  }
}

export async function insertUser(db: Kysely<Database>, email = `u${randomBytes(4).toString('hex')}@example.com`): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({ email, name: 'Test User', roles: JSON.stringify(['user']) })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** A logger writing into `lines` (parsed JSON). */
export function captureLog(): { log: Logger; lines: Array<Record<string, unknown>>; raw: string[] } {
  const lines: Array<Record<string, unknown>> = []
  const raw: string[] = []
  const log = createLogger('debug', {}, (line) => {
    raw.push(line)
    lines.push(JSON.parse(line) as Record<string, unknown>)
  })
  return { log, lines, raw }
}

/** The same database, failing every query after the first `okQueries` ones (infrastructure failure). */
export function failingAfter(db: Kysely<Database>, okQueries: number): Kysely<Database> {
  let count = 0
  return db.withPlugin({
    transformQuery: (args) => {
      count += 1
      if (count > okQueries) throw new Error('simulated database failure')
      return args.node
    },
    transformResult: async (args) => args.result,
  })
}
