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

/** The parent's environment, less what would point the child at another database or port. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...env } = process.env
  return { ...env, PORT: '0', HOST: '127.0.0.1', ...extra }
}

/**
 * The floor on `database`: `families` live tokens, `history` spent ones behind each (as the row
 * seeds the IAM's), then served; `tokens` are the live ones, each to be spent once.
 */
export async function startRotationFloor(database: string, families: number, history: number): Promise<NodeServer & { tokens: string[] }> {
  const entry = join(ROOT, 'bench', 'rotation-floor.mjs')
  const setup = execFileSync(process.execPath, [entry, '--database', database, '--setup', String(families), '--history', String(history)], { encoding: 'utf8', env: childEnv({}) })
  const { tokens } = JSON.parse(setup.trim().split('\n').at(-1)!) as { tokens: string[] }
  const server = await startNodeServer({
    name: 'rotation floor',
    entry,
    args: ['--database', database],
    env: childEnv({ NODE_ENV: 'production' }),
    keepLogs: false,
    startTimeoutMs: START_TIMEOUT_MS,
  })
  return { ...server, tokens }
}

/** The login floor on `database`, its one account `email` with `password`. */
export async function startLoginFloor(database: string, email: string, password: string): Promise<NodeServer> {
  const entry = join(ROOT, 'bench', 'login-floor.mjs')
  execFileSync(process.execPath, [entry, '--database', database, '--setup', '--email', email, '--password', password], { encoding: 'utf8', env: childEnv({}) })
  return startNodeServer({
    name: 'login floor',
    entry,
    args: ['--database', database],
    env: childEnv({ NODE_ENV: 'production' }),
    keepLogs: false,
    startTimeoutMs: START_TIMEOUT_MS,
  })
}
