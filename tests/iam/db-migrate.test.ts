// `npm run db:migrate` (scripts/migrate.mjs -> the built IAM with IAM_TASK=db:migrate): applies the
// migrations to the configured database and exits 0; a second run has nothing to do.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { migrations } from '../../iam/db/migrations/index'
import { IAM_TEST_BUILD, ROOT } from '../helpers/build'
import { connectDatabase, createThrowawayPg, DATABASE_URL } from '../helpers/test-database'
import { envWithoutStoreUrls } from '../helpers/iam-server'
import { skippedWithout, titled } from '../helpers/skip-notes'

const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** Runs `npm run db:migrate` with a config file whose data dir is a fresh temp dir. */
async function dbMigrate(env: Record<string, string>, config: Record<string, unknown> = {}): Promise<{ code: number | null; output: string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-migrate-'))
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const configPath = join(dataDir, 'iam.json')
  writeFileSync(configPath, JSON.stringify({ service: { dataDir }, ...config }))
  // the suite's own URLs must not leak into a run that names its database explicitly
  const parentEnv = envWithoutStoreUrls()
  const child = spawn('npm', ['run', '--silent', 'db:migrate'], {
    cwd: ROOT,
    // the build this suite made (scripts/migrate.mjs defaults to the production iam/.output)
    env: { ...parentEnv, NODE_ENV: 'development', IAM_CONFIG: configPath, IAM_OUTPUT_DIR: IAM_TEST_BUILD.output, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, output, dataDir }
}

describe('npm run db:migrate', () => {
  // PostgreSQL only when DATABASE_URL names a server: the run creates and drops its own database.
  it.skipIf(skippedWithout('postgres'))(titled('applies the migrations to a PostgreSQL database and exits 0, then finds nothing to do', 'postgres'), async () => {
    const pg = await createThrowawayPg(DATABASE_URL!)
    cleanups.push(() => pg.drop())
    const first = await dbMigrate({ DATABASE_URL: pg.url })
    expect(first.code, first.output).toBe(0)
    expect(first.output).toContain('"migrations applied"')
    for (const name of Object.keys(migrations)) expect(first.output).toContain(name)
    expect(first.output).toContain('db:migrate done')

    const db = await connectDatabase(pg.url)
    try {
      const applied = await db.selectFrom('iam_migrations' as never).select('name' as never).execute()
      expect(applied).toEqual(Object.keys(migrations).map((name) => ({ name })))
      const users = await db.selectFrom('users').selectAll().execute()
      expect(users).toEqual([])
    } finally {
      await db.destroy()
    }

    const second = await dbMigrate({ DATABASE_URL: pg.url })
    expect(second.code, second.output).toBe(0)
    expect(second.output).not.toContain('"migrations applied"')
    expect(second.output).toContain('db:migrate done')
  })

  it('migrates the embedded database in the data dir and exits 0', async () => {
    const run = await dbMigrate({})
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain('2026-11-21-0001-initial')
    const db = await connectDatabase(`file://${join(run.dataDir, 'iam', 'db')}`)
    try {
      expect(await db.selectFrom('api_tokens').selectAll().execute()).toEqual([])
    } finally {
      await db.destroy()
    }
  }, 120_000) // an on-disk PGlite's first start (initdb with fsyncs) takes tens of seconds on a busy disk

  it('exits non-zero with the reason when the database cannot be reached', async () => {
    // a closed port on loopback: nothing listens on port 9 here
    const run = await dbMigrate({ DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none' })
    expect(run.code).not.toBe(0)
    expect(run.output).toMatch(/IAM boot failed: .*(ECONNREFUSED|connect)/)
  })
})
