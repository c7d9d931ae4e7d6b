/**
 * Opens the database the config names: PostgreSQL (`database.url` = postgres://...) through `pg`,
 * otherwise PGlite, on disk under <dataDir>/iam/db or in memory (`memory://`). One SQL dialect.
 */
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Kysely, PostgresDialect, sql, type Dialect, type LogEvent } from 'kysely'
import { Migrator, type MigrationResultSet } from 'kysely/migration'
import type { IamConfig } from '../lib/config-schema'
import { lockDataDir } from './data-dir-lock'
import { jsonArraysPlugin } from './json-arrays-plugin'
import { migrations } from './migrations/index'
import { attachDirectConnections, directPipelines, type DirectPool } from '../fast/direct'
import { Pipelines, STATEMENT_TIMEOUT_MS, type PipelineClient } from '../fast/pipelined'
import { preparedQueryMethod, type PgQueryClass } from '../fast/prepared'
import type { Database } from './schema'
import { emitSignal, statementKind } from '../lib/signals'
import { tracingActive } from '../../shared/tracing'
import { recordStatementSpan } from '../lib/tracing'
import type { PoolStats, ReplicaStats } from '../lib/metrics'
import { attachReplicas, createReplicaSet, REPLICA_POOL_MAX, type ReplicaPool, type ReplicaSet } from './replicas'

type Pool = PoolStats & DirectPool

// The pg pool behind each PostgreSQL Kysely, for the metrics' pool gauge (PGlite has none) and the
// connections opened at start; fast/direct.ts keeps it too, with the pipelined connections.
const pools = new WeakMap<Kysely<Database>, Pool>()

/** The live pool counters of a PostgreSQL database; undefined on PGlite. */
export const databasePoolStats = (db: Kysely<Database>): PoolStats | undefined => pools.get(db)

// The read replicas of each PostgreSQL Kysely opened with database.replicas (db/replicas.ts).
const replicaSets = new WeakMap<Kysely<Database>, ReplicaSet>()

/** Health and lag of each read replica, for the metrics; empty without replicas. */
export const databaseReplicaStats = (db: Kysely<Database>): ReplicaStats[] => replicaSets.get(db)?.stats() ?? []

// The PGlite behind each embedded Kysely, for a copy of the whole database (dumpEmbeddedDatabase).
const embedded = new WeakMap<Kysely<Database>, { dumpDataDir(compression?: 'none'): Promise<Blob> }>()

/**
 * A copy of an embedded database as it is now (PGlite's dumpDataDir tarball, the form an in-memory
 * PGlite starts from: replaceMemoryTemplate); undefined on PostgreSQL. Only the test build calls
 * this: a second IAM on PGlite cannot open another process's database, but it can start from a
 * copy of it (test-build/routes/__test/database-dump.get.ts).
 */
export async function dumpEmbeddedDatabase(db: Kysely<Database>): Promise<Blob | undefined> {
  return embedded.get(db)?.dumpDataDir('none')
}

/** Connections of a PostgreSQL pool: opened at start (warmDatabase) and kept. */
const POOL_SIZE = 10

/**
 * Pipelined connections for the reads of every request (pipelined.ts), besides the pool. A backend
 * answers one statement at a time: with two, those reads can keep two of PostgreSQL's cores busy
 * while the instance itself runs on one. Opened at start and again after a loss.
 */
export const PIPELINE_CONNECTIONS = 2

/**
 * Opens every pooled PostgreSQL connection now, at boot, instead of during the first burst: a burst
 * that finds the pool cold opens ten connections while the event loop is busiest, and a handshake
 * slowed past database.connectTimeoutMs turns a healthy database into 503s. The pool keeps them
 * (min = max). PGlite: nothing to do.
 */
export async function warmDatabase(db: Kysely<Database>): Promise<void> {
  const pool = pools.get(db)
  if (!pool) return
  const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()))
  for (const client of clients) client.release()
  await directPipelines(db)?.warm()
}

export type DatabaseKind = 'postgres' | 'pglite'

export function databaseKind(config: { database: { url?: string } }): DatabaseKind {
  return config.database.url && /^postgres(ql)?:/.test(config.database.url) ? 'postgres' : 'pglite'
}

// Where an in-memory PGlite starts from: an empty cluster (initdb), unless the test build gave a
// pre-migrated dump (test-build/plugins/pglite-template.ts), which loads in a fraction of the time.
let memoryTemplate: () => Blob | undefined = () => undefined

/** Only the test build calls this; it runs before boot reaches PGlite.create (plugins are synchronous). */
export function replaceMemoryTemplate(template: () => Blob | undefined): void {
  memoryTemplate = template
}

/** The longest wait for a free pooled connection (a dependency that is away is a 503 within 2 s, see docs/operations.md). */
const ACQUIRE_TIMEOUT_MS = 2000

// Every statement Kysely sends (transaction control included) is one round trip: counted by kind
// for iam_db_statements_total, which the benchmark and the round-trip tests read.
// With tracing on, also a span per statement (lib/tracing.ts): Kysely logs it in the caller's
// async context, so it lands under the request's span.
const countStatement = (event: LogEvent): void => {
  emitSignal({ kind: 'dbStatement', statement: statementKind(event.query.sql) })
  if (tracingActive) recordStatementSpan(event.query.sql, event.queryDurationMillis, event.level === 'error' ? event.error : undefined)
}

/** `database.connectTimeoutMs`, `preparedStatements`, `pgliteSharedBuffers`, `replicas` and `replicaMaxLagSeconds` may be left out by callers outside the server (tests, scripts): their defaults. */
type DatabaseOptions = {
  database: Omit<IamConfig['database'], 'connectTimeoutMs' | 'preparedStatements' | 'pgliteSharedBuffers' | 'replicas' | 'replicaMaxLagSeconds'> & {
    connectTimeoutMs?: number
    preparedStatements?: boolean
    pgliteSharedBuffers?: string
    replicas?: string[]
    replicaMaxLagSeconds?: number
  }
  service: IamConfig['service']
}

export async function createDatabase(config: DatabaseOptions): Promise<Kysely<Database>> {
  if (databaseKind(config) === 'postgres') {
    const { default: pg } = await import('pg')
    // timestamptz -> Date (default); int8 (count(*)) -> number: our counts stay far below 2^53.
    pg.types.setTypeParser(20, (value: string) => Number(value))
    // Two bounds: a new connection gives up after connectTimeoutMs (the client's own timer: a
    // PostgreSQL that hangs or is gone), and a request waiting for a free pooled connection gives
    // up after ACQUIRE_TIMEOUT_MS (pg-pool's timer). During an outage either ends in a 503 within
    // 2 s instead of a queue; under a burst the wait for a busy pool may exceed the
    // connect bound without anything being wrong, so it gets its own, longer one.
    const connectTimeoutMs = config.database.connectTimeoutMs ?? 1000
    const prepare = config.database.preparedStatements !== false
    class BoundedClient extends pg.Client {
      constructor(options: ConstructorParameters<typeof pg.Client>[0]) {
        super({ ...(typeof options === 'object' ? options : { connectionString: options }), connectionTimeoutMillis: connectTimeoutMs })
      }
    }
    if (prepare) {
      // Kysely's driver calls query(sql, parameters): named prepared statements (fast/prepared.ts)
      const plain = pg.Client.prototype.query as (this: unknown, ...args: unknown[]) => unknown
      BoundedClient.prototype.query = preparedQueryMethod(pg.Query as unknown as PgQueryClass, plain) as typeof pg.Client.prototype.query
    }
    const reads = new Pipelines(PIPELINE_CONNECTIONS, async () => {
      // @types/pg leaves out `pipeline`; query_timeout bounds each statement (pipelined.ts)
      const client = new BoundedClient({ connectionString: config.database.url, keepAlive: true, pipeline: true, query_timeout: STATEMENT_TIMEOUT_MS } as ConstructorParameters<typeof pg.Client>[0])
      await client.connect()
      // counted as the pool's lost connections are (iam_dependency_errors_total)
      client.on('error', () => emitSignal({ kind: 'dependencyError', dependency: 'database' }))
      return client as unknown as PipelineClient
    })
    const pool = new pg.Pool({
      connectionString: config.database.url,
      max: POOL_SIZE,
      // connections opened are kept (warmDatabase opens them all at boot)
      min: POOL_SIZE,
      // @types/pg declares the constructor without arguments; pg-pool passes the pool options
      Client: BoundedClient as unknown as new () => InstanceType<typeof pg.Client>,
      connectionTimeoutMillis: Math.max(ACQUIRE_TIMEOUT_MS, connectTimeoutMs),
      keepAlive: true,
    })
    // An idle client losing its connection emits 'error' on the pool; unhandled, that event would
    // end the process. The pool drops the client, and the next query reports its own failure.
    pool.on('error', () => emitSignal({ kind: 'dependencyError', dependency: 'database' }))
    // The same for a client checked out (inside a transaction) when its connection drops: pg-pool
    // listens only while clients are idle. The query in progress fails with its own error.
    pool.on('connect', (client) => client.on('error', () => {}))
    // Read replicas: small pools of the same bounded clients (db/replicas.ts says which reads go
    // there). Nothing waits for them at start: a replica that is away is only a read the primary
    // answers, never a reason not to serve.
    const replicaUrls = config.database.replicas ?? []
    const replicas = replicaUrls.length
      ? createReplicaSet({
          urls: replicaUrls,
          primary: pool,
          maxLagSeconds: config.database.replicaMaxLagSeconds,
          kyselyOf: (replicaPool) => new Kysely<Database>({ dialect: new PostgresDialect({ pool: replicaPool as unknown as InstanceType<typeof pg.Pool> }), plugins: [jsonArraysPlugin()], log: countStatement }),
          openPool: (url) => {
            const replicaPool = new pg.Pool({
              connectionString: url,
              max: REPLICA_POOL_MAX,
              Client: BoundedClient as unknown as new () => InstanceType<typeof pg.Client>,
              connectionTimeoutMillis: Math.max(ACQUIRE_TIMEOUT_MS, connectTimeoutMs),
              // a statement on a replica that stopped answering falls back to the primary within the same bound as a pipelined read
              query_timeout: STATEMENT_TIMEOUT_MS,
              keepAlive: true,
            } as ConstructorParameters<typeof pg.Pool>[0])
            // a replica going away ends its idle connections: counted, never fatal (as for the primary's pool)
            replicaPool.on('error', () => emitSignal({ kind: 'dependencyError', dependency: 'replica' }))
            replicaPool.on('connect', (client) => client.on('error', () => {}))
            return replicaPool as unknown as ReplicaPool
          },
        })
      : undefined
    // destroy() closes the pipelined connections and the replicas too (Kysely ends only the pool, and only once it used it)
    class PipelinedKysely extends Kysely<Database> {
      override async destroy(): Promise<void> {
        await Promise.all([reads.end(), replicas?.end()])
        await super.destroy()
      }
    }
    const db = new PipelinedKysely({ dialect: new PostgresDialect({ pool }), plugins: [jsonArraysPlugin()], log: countStatement })
    pools.set(db, pool)
    attachDirectConnections(db, { pool, pipelines: reads })
    if (replicas) {
      replicaSets.set(db, replicas)
      attachReplicas(db, replicas, countStatement)
    }
    return db
  }
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGliteDialect } = await import('kysely-pglite-dialect')
  let dataDir: string | undefined
  if (config.database.url !== 'memory://') {
    dataDir = config.database.url?.startsWith('file://')
      ? config.database.url.slice('file://'.length)
      : resolve(join(config.service.dataDir, 'iam', 'db'))
    mkdirSync(dataDir, { recursive: true })
  }
  // before PGlite touches the files: a second process on them would corrupt them (data-dir-lock.ts)
  const release = dataDir ? lockDataDir(dataDir) : undefined
  try {
    // appended -c parameters win over the data directory's postgresql.conf and leave it untouched
    const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${config.database.pgliteSharedBuffers ?? '16MB'}`]
    const pglite = await PGlite.create(dataDir ? { dataDir, startParams } : { loadDataDir: memoryTemplate(), startParams })
    const dialect = new PGliteDialect(pglite)
    const db = new Kysely<Database>({ dialect: release ? releasingOnDestroy(dialect, release) : dialect, plugins: [jsonArraysPlugin()], log: countStatement })
    embedded.set(db, pglite)
    return db
  } catch (error) {
    release?.()
    throw error
  }
}

/** `dialect` whose driver also runs `release` once destroyed (db.destroy() closed PGlite). */
function releasingOnDestroy(dialect: Dialect, release: () => void): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => {
      const driver = dialect.createDriver()
      const destroy = async () => {
        await driver.destroy()
        release()
      }
      // the driver's methods bound to it (it keeps its client in private fields), destroy wrapped
      return new Proxy(driver, {
        get: (target, key) => {
          if (key === 'destroy') return destroy
          const value: unknown = Reflect.get(target, key, target)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
    },
  }
}

/** What `migrateToLatest` did: Kysely's result, and the migrations of a later release the database already holds. */
export type MigrationOutcome = MigrationResultSet & { newer: string[] }

const MIGRATION_TABLE = 'iam_migrations'

/**
 * The executed migrations this release does not know, when all of them come after its own newest
 * one and every one of its own has run: the database was migrated by a later release. Empty when
 * the database holds nothing unknown. Kysely refuses such a database ("previously executed
 * migration ... is missing"), which would stop going back one release at its `db:migrate`; an
 * unknown migration older than a known one is still refused by Kysely (history that differs).
 */
async function laterReleaseMigrations(db: Kysely<Database>): Promise<string[]> {
  let executed: string[]
  try {
    const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db)
    executed = rows.rows.map((row) => row.name)
  } catch {
    return [] // no migration table yet: a new database
  }
  const known = Object.keys(migrations).sort()
  const newest = known.at(-1) ?? ''
  const unknown = executed.filter((name) => !Object.hasOwn(migrations, name)).sort()
  if (unknown.length === 0 || unknown[0]! <= newest) return []
  return known.every((name) => executed.includes(name)) ? unknown : []
}

/**
 * Runs every pending migration; throws with the failing migration's name. A database a later
 * release has migrated (expand steps this release does not know: docs/operations.md, "Rolling
 * upgrades") is left as it is and named in `newer`: this release runs on it.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationOutcome> {
  const newer = await laterReleaseMigrations(db)
  if (newer.length) return { results: [], newer }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: 'iam_migrations_lock',
  })
  const result = await migrator.migrateToLatest()
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`migration ${failed} failed: ${(result.error as Error).message ?? result.error}`)
  }
  return { ...result, newer: [] }
}
