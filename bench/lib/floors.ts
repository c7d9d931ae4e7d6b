/**
 * The floors the `refresh` and `login` rows are read against (bench/run.mjs):
 * bench/rotation-floor.mjs and bench/login-floor.mjs, each started on a PostgreSQL database with
 * its tables made and seeded first.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from '../../scripts/lib/build.ts'
import { startNodeServer, type NodeServer } from '../../scripts/lib/run-server.ts'

const START_TIMEOUT_MS = 60_000

// a floor reads its database from --database and nothing else from the environment but PORT
const serveEnv = { ...process.env, PORT: '0', NODE_ENV: 'production' }

/** Runs `file`'s setup on `database` with `setup` arguments (its stdout), then serves it there. */
async function startFloor(name: string, file: string, database: string, setup: string[], serveArgs: string[] = []): Promise<NodeServer & { setupOutput: string }> {
  const entry = join(ROOT, 'bench', file)
  const setupOutput = execFileSync(process.execPath, [entry, '--database', database, '--setup', ...setup], { encoding: 'utf8' })
  const server = await startNodeServer({ name, entry, args: ['--database', database, ...serveArgs], env: serveEnv, keepLogs: false, startTimeoutMs: START_TIMEOUT_MS })
  return { ...server, setupOutput }
}

/**
 * The rotation floor on `database`: `families` live tokens, `history` spent ones behind each (as
 * the row seeds the IAM's), then served; `tokens` are the live ones, each to be spent once.
 */
export async function startRotationFloor(database: string, families: number, history: number): Promise<NodeServer & { tokens: string[] }> {
  const server = await startFloor('rotation floor', 'rotation-floor.mjs', database, [String(families), '--history', String(history)])
  const { tokens } = JSON.parse(server.setupOutput.trim().split('\n').at(-1)!) as { tokens: string[] }
  return { ...server, tokens }
}

/**
 * The login floor on `database`, its one account `email` with `password`; with `webhooks`, each
 * sign-in also sent to every URL, signed with the secret of the same index.
 */
export function startLoginFloor(database: string, email: string, password: string, webhooks?: { urls: string[]; secrets: string[] }): Promise<NodeServer> {
  return startFloor('login floor', 'login-floor.mjs', database, ['--email', email, '--password', password], webhooks ? ['--webhooks', JSON.stringify(webhooks)] : [])
}
