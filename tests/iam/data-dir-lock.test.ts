/**
 * One process per PGlite data dir (iam/db/data-dir-lock.ts): while a built IAM runs on a data dir,
 * the built admin CLI, `npm run db:migrate` and a second IAM on it refuse, naming the dir and the
 * holder's pid; once it stops, the CLI runs; a lock left by a dead process is taken over. The IAM
 * runs on a PGlite directory of its own whatever database the run names (PostgreSQL takes no lock).
 */
// store-independent: its IAM runs on a PGlite directory of its own whatever database the run names, and PostgreSQL takes no lock
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IAM_TEST_BUILD, ROOT } from '../helpers/build'
import { envWithoutStoreUrls, startIam, startIamExpectingExit, type IamServer } from '../helpers/iam-server'
import { migratedPgliteDir } from '../helpers/test-database'

const START_TIMEOUT_MS = 180_000

let dir: string
let dbDir: string
let configPath: string
let iam: IamServer | undefined
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'iam-lock-'))
  dbDir = join(dir, 'db')
  // already migrated: what is tested is the lock, not a first start
  migratedPgliteDir(dbDir)
  configPath = join(dir, 'iam.json')
  writeFileSync(configPath, JSON.stringify({ service: { dataDir: dir }, database: { url: `file://${dbDir}` }, storage: { driver: 'memory' } }))
})
afterAll(async () => {
  await iam?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts the built IAM on the PGlite directory `dbDir` (share: no PostgreSQL database of its own). */
const startOnDataDir = () => startIam({ share: { databaseUrl: `file://${dbDir}`, storagePrefix: 'lock' } })

interface Run {
  code: number | null
  output: string
}

/** Runs `node <script> ...args` with the shared config file (the suite's own URLs never leak in). */
async function run(script: string, args: string[]): Promise<Run> {
  const parentEnv = envWithoutStoreUrls()
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...parentEnv, NODE_ENV: 'development', IAM_CONFIG: configPath, IAM_OUTPUT_DIR: IAM_TEST_BUILD.output },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  return { code, output }
}

/** The built admin CLI (what `npm run iam --` runs). */
const cli = (...args: string[]) => run(join(IAM_TEST_BUILD.output, 'server', 'cli.mjs'), args)
const dbMigrate = () => run(join(ROOT, 'scripts', 'migrate.mjs'), [])

describe('a PGlite data dir held by a running IAM', () => {
  it('refuses the admin CLI, naming the data dir and the IAM pid, with a non-zero status', async () => {
    iam = await startOnDataDir()
    const refused = await cli('users:list', '--json')
    expect(refused.code, refused.output).not.toBe(0)
    expect(refused.output).toContain(dbDir)
    expect(refused.output).toContain(`process ${iam.process.pid}`)
    // the running IAM still answers: nothing was opened beside it
    expect((await fetch(`${iam.url}/health`)).status).toBe(200)
  }, START_TIMEOUT_MS)

  it('refuses npm run db:migrate the same way', async () => {
    const refused = await dbMigrate()
    expect(refused.code, refused.output).not.toBe(0)
    expect(refused.output).toContain(dbDir)
    expect(refused.output).toContain(`process ${iam!.process.pid}`)
  }, START_TIMEOUT_MS)

  it('refuses a second IAM on the same data dir', async () => {
    const second = await startIamExpectingExit({ share: { databaseUrl: `file://${dbDir}`, storagePrefix: 'lock2' } })
    expect(second.code).not.toBe(0)
    expect(second.output).toContain(dbDir)
    expect(second.output).toContain(`process ${iam!.process.pid}`)
  }, START_TIMEOUT_MS)

  it('lets the CLI run once the IAM stopped (the lock is released on shutdown)', async () => {
    await iam!.stop()
    iam = undefined
    expect(existsSync(join(dbDir, 'iam.lock'))).toBe(false)
    const listed = await cli('users:list', '--json')
    expect(listed.code, listed.output).toBe(0)
    expect(existsSync(join(dbDir, 'iam.lock'))).toBe(false)
  }, START_TIMEOUT_MS)

  it('takes over a lock left by a process that is gone', async () => {
    // a pid that existed and has exited: what a crashed IAM leaves behind
    const gone = spawnSync(process.execPath, ['-e', '0']).pid
    writeFileSync(join(dbDir, 'iam.lock'), `${gone}\n`)
    iam = await startOnDataDir()
    // its first line is the holder's pid
    expect(readFileSync(join(dbDir, 'iam.lock'), 'utf8').split('\n')[0]).toBe(String(iam.process.pid))
    expect((await fetch(`${iam.url}/health`)).status).toBe(200)
  }, START_TIMEOUT_MS)
})
