/**
 * The admin CLI (`npm run iam -- <command>`) beside a built IAM on one data set, for the tests that
 * run operator commands and check their effects over HTTP. PGlite when DATABASE_URL is unset:
 * PGlite is single-process, so the IAM is stopped while the CLI runs and started again on the same
 * data directory when a test next talks to it; PostgreSQL (+ Redis) when it is set: the CLI runs
 * beside the running IAM.
 *
 * The CLI runs as `node scripts/iam.mjs`, the command behind `npm run iam` (package.json), so each
 * run does not pay npm's own start; `via: 'npm'` runs it through `npm run -s iam` itself.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { IAM_TEST_BUILD, ROOT } from '../helpers/build'
import { envWithoutStoreUrls, startIam, type IamServer, type Json, type StartOptions } from '../helpers/iam-server'
import { createThrowawayPg, DATABASE_URL } from '../helpers/test-database'

export const onPostgres = !!DATABASE_URL
const REDIS_URL = process.env.REDIS_URL

export type Cleanups = Array<() => Promise<void> | void>

/** A temp dir removed by `cleanups`. */
export function tempDir(cleanups: Cleanups, tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), `iam-cli-${tag}-`))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** The script `npm run iam` runs (package.json "iam"), from the repository root as npm runs it. */
const NODE_CLI = [process.execPath, join(ROOT, 'scripts', 'iam.mjs')]
const NPM_CLI = ['npm', 'run', '--silent', 'iam', '--']

/** The CLI with `args` and the given env (the suite's own URLs never leak in); `via` npm run or its node command. */
export async function cli(args: string[], env: Record<string, string>, via: 'node' | 'npm' = 'node'): Promise<Run> {
  const parentEnv = envWithoutStoreUrls()
  const [command, ...prefix] = via === 'npm' ? NPM_CLI : NODE_CLI
  const child = spawn(command!, [...prefix, ...args], {
    cwd: ROOT,
    env: { ...parentEnv, NODE_ENV: 'development', IAM_OUTPUT_DIR: IAM_TEST_BUILD.output, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, stdout, stderr }
}

/** A --json run that must succeed: its document. */
export async function cliJson(args: string[], env: Record<string, string>): Promise<Json> {
  const run = await cli([...args, '--json'], env)
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as Json
}

/**
 * One data set shared by the IAM and the CLI: a PGlite directory, or a throw-away PostgreSQL
 * database (+ Redis through REDIS_URL), and the config file both read.
 */
export interface Deployment {
  env: Record<string, string>
  serverConfig: Json
  share: IamServer['share']
}

/** A fresh data set; the IAM runs with `serverConfig` (the CLI reads only the data set's file). */
export async function deployment(cleanups: Cleanups, serverConfig: Json): Promise<Deployment> {
  const dir = tempDir(cleanups, 'data')
  const storagePrefix = `cli${Date.now().toString(36)}`
  let databaseUrl = `file://${join(dir, 'db')}`
  if (onPostgres) {
    const pg = await createThrowawayPg(DATABASE_URL!)
    cleanups.push(() => pg.drop())
    databaseUrl = pg.url
  }
  const fileConfig = { service: { dataDir: dir }, storage: { prefix: storagePrefix } }
  const configPath = join(dir, 'iam.json')
  writeFileSync(configPath, JSON.stringify(onPostgres ? fileConfig : { ...fileConfig, database: { url: databaseUrl } }))
  // the CLI reads the server's way: IAM_CONFIG, then DATABASE_URL / REDIS_URL over it
  const env: Record<string, string> = { IAM_CONFIG: configPath, ...(onPostgres ? { DATABASE_URL: databaseUrl } : {}), ...(onPostgres && REDIS_URL ? { REDIS_URL } : {}) }
  return { env, serverConfig, share: { databaseUrl, storagePrefix } }
}

/** The IAM of a deployment, and CLI turns beside it. */
export interface CliStage {
  /** the IAM on the deployment, started again when a CLI turn stopped it (PGlite) */
  server(): Promise<IamServer>
  /**
   * Runs CLI commands. PGlite is single-process: the CLI runs while the IAM is stopped. It stays
   * stopped until a test next talks to it (server()), so CLI runs with no HTTP check between them
   * share one stop.
   */
  cliTurn<T>(run: () => Promise<T>): Promise<T>
  stop(): Promise<void>
}

export function cliStage(dep: Deployment, start: Omit<StartOptions, 'config' | 'share'> = {}): CliStage {
  let iam: IamServer | undefined
  return {
    server: async () => (iam ??= await startIam({ ...start, config: dep.serverConfig, share: dep.share })),
    cliTurn: async (run) => {
      if (!onPostgres) {
        await iam?.stop()
        iam = undefined
      }
      return run()
    },
    stop: async () => {
      await iam?.stop()
      iam = undefined
    },
  }
}
