/**
 * vitest globalSetup: a migrated PGlite, dumped once (PGlite's dumpDataDir tarball), that every
 * IAM on the in-memory database loads at start instead of running initdb and the migrations
 * (iam/test-build/plugins/pglite-template.ts; the IAM still migrates anything newer itself).
 * The dump is kept in the temp dir under a hash of the migrations and PGlite's version, so a run
 * with neither changed reuses the last one. IAMs inherit its path through IAM_TEST_PGLITE_TEMPLATE.
 *
 * Beside it, the same database as a PGlite data directory (TEST_PGLITE_DIR_TEMPLATE), for the files
 * that run an IAM on PGlite files on disk (`file://`): they copy it into place (migratedPgliteDir,
 * test-database.ts) instead of paying an on-disk initdb and migrations, with an fsync each.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import { migrateToLatest } from '../../iam/db/database'
import { jsonArraysPlugin } from '../../iam/db/json-arrays-plugin'
import type { Database } from '../../iam/db/schema'
import { ROOT } from './build'

const MIGRATIONS = join(ROOT, 'iam', 'db', 'migrations')
const PGLITE_PACKAGE = join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')

function templatePath(): string {
  const hash = createHash('sha256').update(readFileSync(PGLITE_PACKAGE))
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS, file)))
  return join(tmpdir(), `iam-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`)
}

export default async function setup(): Promise<void> {
  // with DATABASE_URL every IAM of the run gets a PostgreSQL database instead
  if (process.env.DATABASE_URL) return
  const path = templatePath()
  if (!existsSync(path)) {
    const pglite = await PGlite.create()
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), plugins: [jsonArraysPlugin()] })
    await migrateToLatest(db)
    const dump = await pglite.dumpDataDir('none')
    await db.destroy()
    // written aside and renamed: a concurrent run never reads a half-written dump
    const partial = `${path}.${process.pid}`
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()))
    renameSync(partial, path)
  }
  process.env.IAM_TEST_PGLITE_TEMPLATE = path
  const dir = `${path}.d`
  if (!existsSync(dir)) {
    const partial = `${dir}.${process.pid}`
    rmSync(partial, { recursive: true, force: true })
    const pglite = await PGlite.create({ dataDir: partial, loadDataDir: new Blob([readFileSync(path)]) })
    await pglite.close()
    // a concurrent run that renamed its own first leaves this one nothing to do
    try {
      renameSync(partial, dir)
    } catch {
      rmSync(partial, { recursive: true, force: true })
    }
  }
  process.env.TEST_PGLITE_DIR_TEMPLATE = dir
}
