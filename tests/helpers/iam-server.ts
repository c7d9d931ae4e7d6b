/**
 * Starts the IAM test build (`node iam/.output-test/server/index.mjs`) as a child process: its own config
 * file, data dir and storage prefix. With DATABASE_URL set it gets a fresh PostgreSQL database
 * (dropped on stop); with REDIS_URL set it uses Redis under a unique prefix. Two instances can
 * share both by passing `share` from the first.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IAM_TEST_BUILD } from './build'
import { untilListening } from './child-server'
import { countStart } from './server-starts'
import { waitUntil } from './wait'

export type Json = Record<string, unknown>

/** The IAM test build's entry (tests/helpers/build.ts: iam/.output-test, or IAM_OUTPUT_DIR). */
export const iamEntry = () => join(IAM_TEST_BUILD.output, 'server', 'index.mjs')

export interface IamServer {
  url: string
  port: number
  /** everything the process printed, one entry per line */
  logs: string[]
  /** what a second instance passes to share this one's database and storage */
  share: { databaseUrl: string; storagePrefix: string }
  dataDir: string
  process: ChildProcess
  stop(): Promise<void>
}

/**
 * V8 flags of a test IAM. `--liftoff-only`: PGlite's WebAssembly (the embedded database) stays on
 * V8's baseline compiler instead of being recompiled by the optimising one in the background; a
 * test IAM lives seconds to minutes, and per start (boot, then 300 to 2,000 requests) that was
 * ~0.8 s less CPU of ~3 s, back to back. It changes nothing the IAM does, only how fast its
 * database's code runs. No effect on PostgreSQL runs (no WebAssembly).
 */
export const TEST_IAM_NODE_FLAGS = ['--liftoff-only']

/** What a test needs to talk to an IAM: its own process (IamServer) or the shared one (shared-iam.ts). */
export type IamEndpoint = Pick<IamServer, 'url' | 'port' | 'logs' | 'share'>

export interface StartOptions {
  config?: Json
  env?: Record<string, string>
  share?: IamServer['share']
  /** reject instead of waiting for "Listening" (for tests of refused starts) */
  expectExit?: boolean
  /** another build's server entry (tests/iam/rolling-upgrade.test.ts runs the previous release's); default iamEntry() */
  entry?: string
}

const deepMerge = (a: Json, b: Json): Json => {
  const out: Json = { ...a }
  for (const [key, value] of Object.entries(b)) {
    const prev = out[key]
    out[key] =
      value && typeof value === 'object' && !Array.isArray(value) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? deepMerge(prev as Json, value as Json)
        : value
  }
  return out
}

async function createPgDatabase(baseUrl: string): Promise<string> {
  const { default: pg } = await import('pg')
  const name = `iam_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  try {
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return url.toString()
}

async function dropPgDatabase(baseUrl: string, dbUrl: string): Promise<void> {
  const { default: pg } = await import('pg')
  const name = new URL(dbUrl).pathname.slice(1)
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${name} with (force)`)
  } finally {
    await admin.end()
  }
}

/** This process's environment without DATABASE_URL and REDIS_URL, for a child that must use only the database and store its config names. */
export function envWithoutStoreUrls(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env
  return rest
}

/** Runs the built IAM with `config` merged over test defaults; resolves once it listens. */
export async function startIam(options: StartOptions = {}): Promise<IamServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-test-'))
  const baseDbUrl = process.env.DATABASE_URL
  const ownsDatabase = !options.share && !!baseDbUrl
  const databaseUrl = options.share?.databaseUrl ?? (baseDbUrl ? await createPgDatabase(baseDbUrl) : 'memory://')
  const storagePrefix = options.share?.storagePrefix ?? `t${randomBytes(5).toString('hex')}`
  const config = deepMerge(
    {
      service: { dataDir },
      database: { url: databaseUrl },
      storage: process.env.REDIS_URL
        ? { driver: 'redis', url: process.env.REDIS_URL, prefix: storagePrefix }
        : { driver: 'memory', prefix: storagePrefix },
      // tests never reach the internet: breach checks and MX lookups are off unless a test turns them on
      password: { breachCheck: { enabled: false }, argon2: { memoryCost: 8192, timeCost: 1, parallelism: 1 } },
      emailChecks: { mx: false },
      // the proof-of-work check (on in the npm start profile) is off unless a test turns it on:
      // tests/iam/bot-challenge.security.test.ts
      botChallenge: { enabled: false },
      // webhooks off unless a test turns them on (tests/iam/webhooks*.test.ts): their timer reads the
      // database every poll, which the tests that count statements per request would count too
      webhooks: { enabled: false },
      // the SSO-required domains are read at boot and after each change on the instance, not on a timer
      // (tests/iam/sso-required.test.ts turns it on): a timed read would land in the statement counts too
      enterprise: { ssoRequiredRefreshMs: 0 },
      // tests make many new devices from one address; tests/iam/check.test.ts covers this limiter
      rate_limiters: { check: { points: 100_000, duration: 60, blockDuration: 60 } },
      logLevel: 'debug',
    },
    options.config ?? {},
  )
  const configPath = join(dataDir, 'iam.json')
  writeFileSync(configPath, JSON.stringify(config))
  // the URLs in env would override the per-instance database and prefix chosen above
  const parentEnv = envWithoutStoreUrls()
  countStart('iam')
  const child = spawn(process.execPath, [...TEST_IAM_NODE_FLAGS, options.entry ?? iamEntry()], {
    cwd: dataDir,
    env: { ...parentEnv, NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1', IAM_CONFIG: configPath, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // 'close' comes after the last output line: a boot that fails is reported with all of it
  const exit: { code?: number | null } = {}
  child.once('close', (code) => (exit.code = code))
  const { port, logs, stop } = await untilListening('IAM', child, async () => {
    if (ownsDatabase && baseDbUrl) await dropPgDatabase(baseDbUrl, databaseUrl).catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
  })
  const url = `http://127.0.0.1:${port}`
  // "Listening" comes before boot finished; /health waits on boot (migrations) through 00.ready.
  // No answer: boot may have failed (the process exits), reported like a refused start.
  if (!(await fetch(`${url}/health`).then(() => true, () => false))) {
    await waitUntil(() => 'code' in exit, 'the IAM to exit', 5000).catch(() => undefined)
    if ('code' in exit) {
      await stop()
      throw Object.assign(new Error(`IAM exited with ${exit.code} during boot:\n${logs.join('\n')}`), { code: exit.code, logs })
    }
  }
  return { url, port, logs, share: { databaseUrl, storagePrefix }, dataDir, process: child, stop }
}

/** Starts the IAM with a config it must refuse; resolves with the exit code and output. */
export async function startIamExpectingExit(options: StartOptions = {}): Promise<{ code: number | null; output: string }> {
  try {
    const server = await startIam(options)
    await server.stop()
    throw new Error('the IAM started but was expected to refuse')
  } catch (error) {
    const e = error as Error & { code?: number | null; logs?: string[] }
    if (!e.logs) throw error
    return { code: e.code ?? null, output: e.logs.join('\n') }
  }
}
