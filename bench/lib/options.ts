/**
 * `npm run bench` arguments (node:util parseArgs): pure, so tests/unit/bench-harness.test.ts
 * checks them without starting anything.
 */
import { parseArgs } from 'node:util'

/** The rows of the hot-path table (bench/README.md), in the order they run. */
export const ROW_IDS = ['health', 'full-auth', 'verify', 'refresh', 'login', 'gateway-session', 'oidc-client-credentials', 'oidc-refresh', 'oidc-introspect', 'oidc-client-metadata-document', 'webhooks-signup', 'webhooks-login', 'webhooks-throughput', 'idle-rss', 'import'] as const
export type RowId = (typeof ROW_IDS)[number]

export interface BenchOptions {
  /** seconds per measured run */
  durationS: number
  /** seconds of unmeasured load before each measured run (JIT, pools, caches) */
  warmupS: number
  /** autocannon connections (the hot-path table's: 50) */
  connections: number
  /** a row against a baseline measures both in this many alternating rounds and compares their median rounds */
  rounds: number
  /** the rows to run */
  only: RowId[]
  /** every row runs (no --only): the run is written to bench/RESULTS.md */
  writeResults: boolean
  /** write the full report here */
  json?: string
  /** growth run: seed this many users and API tokens (PostgreSQL only), then rerun login, full-auth, verify */
  seed: number
  /** database kinds to run; postgres needs DATABASE_URL */
  databases: Array<'pglite' | 'postgres'>
}

const positive = (name: string, text: string, { integer = false, min = 1 } = {}): number => {
  const value = Number(text)
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`--${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got "${text}"`)
  }
  return value
}

/** Reads argv (without node and the script); throws a message for the user on bad input. */
export function parseBenchArgs(argv: string[], env: Record<string, string | undefined> = {}): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '3' },
      only: { type: 'string' },
      json: { type: 'string' },
      seed: { type: 'string', default: '0' },
      databases: { type: 'string' },
    },
  })
  const only = values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : [...ROW_IDS]
  const unknown = only.filter((id) => !(ROW_IDS as readonly string[]).includes(id))
  if (unknown.length > 0) throw new Error(`--only: unknown row ${unknown.join(', ')} (rows: ${ROW_IDS.join(', ')})`)
  const defaultDatabases = env.DATABASE_URL ? 'pglite,postgres' : 'pglite'
  const databases = (values.databases ?? defaultDatabases).split(',').map((s) => s.trim())
  for (const kind of databases) {
    if (kind !== 'pglite' && kind !== 'postgres') throw new Error(`--databases: unknown kind ${kind} (pglite, postgres)`)
    if (kind === 'postgres' && !env.DATABASE_URL) throw new Error('--databases postgres needs DATABASE_URL')
  }
  const seed = positive('seed', values.seed, { integer: true, min: 0 })
  if (seed > 0 && !env.DATABASE_URL) throw new Error('--seed runs on PostgreSQL only: set DATABASE_URL')
  return {
    durationS: positive('duration', values.duration),
    warmupS: positive('warmup', values.warmup, { min: 0 }),
    connections: positive('connections', values.connections, { integer: true }),
    rounds: positive('rounds', values.rounds, { integer: true }),
    // keep the table's order whatever order --only names them in
    only: ROW_IDS.filter((id) => only.includes(id)),
    writeResults: !values.only,
    json: values.json,
    seed,
    databases: databases as BenchOptions['databases'],
  }
}
