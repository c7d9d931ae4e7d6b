/**
 * PostgreSQL read replicas (`database.replicas`) for the reads that may lag.
 *
 * THE RULE: a read goes to a replica only when its call site says so, through `mayLag(db)`, and
 * only when a result some seconds old is as good as a fresh one for what the request does with it
 * (admin lists, an account export). A streaming replica replays the primary's WAL after the
 * primary committed it: whatever it answers may miss the last writes. So these NEVER go through
 * mayLag:
 * - session validity, access/API token verification, revocation checks: a sign-out, a revoked
 *   token or a ban takes effect on the next request, on every instance (docs/operations.md),
 *   not once a replica caught up;
 * - single-use redemption (codes, links, refresh rotation) and limiter state: the replica's
 *   answer would let a used credential be used again;
 * - anything that follows a write in the same request (read-your-writes), and anything inside a
 *   transaction (a transaction is not a Kysely mayLag knows: it is handed back unchanged).
 *
 * Selection: round robin among the replicas that are healthy and have a free connection. A replica
 * that fails a read (refused, timed out, shut down) is marked down and the read runs on the
 * primary in the same request: the caller sees no error, at worst the primary's own. The probe
 * (every PROBE_EVERY_MS, also the lag measurement) marks it healthy again once it answers.
 * Readiness never looks at replicas: the primary serves every read on its own.
 */
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery, type DatabaseConnection, type Driver, type LogEvent, type QueryResult, type Transaction } from 'kysely'
import type { Database } from './schema'
import { jsonArraysPlugin } from './json-arrays-plugin'
import { emitSignal } from '../lib/signals'
import type { ReplicaStats } from '../lib/metrics'

/** What a replica read needs of a pg pool (pg.Pool has it). */
export interface ReplicaPool {
  connect(): Promise<{ query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>; release(error?: Error | boolean): void }>
  query(text: string): Promise<{ rows: unknown[] }>
  end(): Promise<void>
  readonly totalCount: number
  readonly idleCount: number
}

/**
 * Connections per replica for reads: a replica takes only the reads that may lag, a few admin and
 * export requests, next to the primary's 10 pooled and 2 pipelined ones (docs/sizing.md counts
 * them). Its pool holds one more, so the probe never waits behind the reads (a probe that timed out
 * waiting would take a busy but healthy replica out).
 */
export const REPLICA_POOL_SIZE = 3
export const REPLICA_POOL_MAX = REPLICA_POOL_SIZE + 1

/** How often each replica is probed: its lag measured, and a replica marked down tried again. */
export const PROBE_EVERY_MS = 5000

// Lag as seen on the replica: 0 when it replayed all the WAL it received (an idle primary writes no
// transactions, so `now() - pg_last_xact_replay_timestamp()` alone would grow without anything
// being behind); else the age of the last transaction it replayed. Not a standby (an operator
// pointed a replica entry at a primary): 0. Null: nothing replayed yet, the lag is unknown.
const LAG_SQL = `select case
  when not pg_is_in_recovery() then 0
  when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
  else extract(epoch from now() - pg_last_xact_replay_timestamp())::float8
end as lag`

interface Replica {
  readonly name: string
  readonly pool: ReplicaPool
  /** a Kysely on the replica's pool, for read-only transactions (mayLagSnapshot) */
  readonly db: Kysely<Database>
  healthy: boolean
  /** times a read found it down: a probe that started before the last one does not bring it back */
  downs: number
  lagSeconds: number | undefined
}

/** Failures that say the replica itself cannot serve (it is marked down until a probe answers). */
export function replicaIsDown(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true
  const { code, severity } = error as { code?: unknown; severity?: unknown }
  // An answer from the server (pg's DatabaseError carries severity and the SQLSTATE): down only for
  // class 08 (connection exception), 53 (insufficient resources) and 57 (operator intervention:
  // shutting down, starting up); another error (a recovery conflict, bad input) is this statement's.
  if (typeof severity === 'string' && typeof code === 'string') return /^(08|53|57)/.test(code)
  // no answer at all: refused, reset, connect timeout, query_timeout, connection terminated
  return true
}

/**
 * The label a replica has in the metrics: host and port of its URL, never the user or password.
 * Two entries for the same address (a mistake, but not a secret) get #2, #3 ... appended.
 */
export function replicaNames(urls: readonly string[]): string[] {
  const seen = new Map<string, number>()
  return urls.map((url, index) => {
    let base: string
    try {
      const parsed = new URL(url)
      base = `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`
    } catch {
      base = `replica-${index}`
    }
    const count = (seen.get(base) ?? 0) + 1
    seen.set(base, count)
    return count === 1 ? base : `${base}#${count}`
  })
}

export interface ReplicaSet {
  /** runs a read on a healthy replica, or on the primary when none is (or the replica failed) */
  read(text: string, parameters: readonly unknown[]): Promise<{ rows: unknown[] }>
  /** `work` on a healthy replica's Kysely; `onPrimary` when none is, or when `work` failed there */
  use<T>(work: (db: Kysely<Database>) => Promise<T>, onPrimary: () => Promise<T>): Promise<T>
  stats(): ReplicaStats[]
  /** one probe round now (the timer runs them every PROBE_EVERY_MS) */
  probe(): Promise<void>
  end(): Promise<void>
}

export function createReplicaSet(input: {
  urls: readonly string[]
  openPool: (url: string) => ReplicaPool
  /** a Kysely on one replica's pool (its transactions pin a connection of that pool) */
  kyselyOf: (pool: ReplicaPool) => Kysely<Database>
  primary: Pick<ReplicaPool, 'connect'>
  /** a replica whose last measured lag is past this takes no reads until a probe finds it caught up; none: any lag */
  maxLagSeconds?: number | undefined
}): ReplicaSet {
  const names = replicaNames(input.urls)
  const replicas: Replica[] = input.urls.map((url, index) => {
    const pool = input.openPool(url)
    return { name: names[index]!, pool, db: input.kyselyOf(pool), healthy: true, downs: 0, lagSeconds: undefined }
  })
  let turn = 0

  // Round robin over the healthy ones with a free connection: a busy replica pool sends the read to
  // the primary at once instead of queueing it behind three others (waiting is not lagging). A
  // replica past `maxLagSeconds` is skipped the same way; an unknown lag (nothing replayed yet) is not.
  const { maxLagSeconds } = input
  const tooFarBehind = (replica: Replica) => maxLagSeconds !== undefined && replica.lagSeconds !== undefined && replica.lagSeconds > maxLagSeconds
  const pick = (): Replica | undefined => {
    for (let i = 0; i < replicas.length; i++) {
      const replica = replicas[(turn + i) % replicas.length]!
      const busy = replica.pool.totalCount - replica.pool.idleCount >= REPLICA_POOL_SIZE
      if (replica.healthy && !busy && !tooFarBehind(replica)) {
        turn = (turn + i + 1) % replicas.length
        return replica
      }
    }
    return undefined
  }

  const onPrimary = async (text: string, parameters: readonly unknown[]) => {
    const client = await input.primary.connect()
    try {
      return { rows: (await client.query(text, parameters.slice())).rows }
    } finally {
      client.release()
    }
  }

  const probeOne = async (replica: Replica) => {
    const downs = replica.downs
    try {
      const row = (await replica.pool.query(LAG_SQL)).rows[0] as { lag: number | string | null } | undefined
      replica.lagSeconds = row?.lag === null || row?.lag === undefined ? undefined : Math.max(0, Number(row.lag))
      if (replica.downs === downs) replica.healthy = true
    } catch {
      replica.healthy = false
    }
  }
  let probing: Promise<void> | undefined
  const probe = () => {
    probing ??= Promise.all(replicas.map(probeOne)).then(() => undefined).finally(() => (probing = undefined))
    return probing
  }
  const timer = setInterval(() => void probe(), PROBE_EVERY_MS)
  timer.unref()
  void probe()

  // Any failure on the replica, down or not, is answered by the primary: a statement the replica
  // cannot run (a recovery conflict, a migration not replayed yet) may run there, and a bad one
  // fails there with the same error it would have had without replicas. Only reads come here, so
  // running one again changes nothing.
  const use = async <T>(work: (replica: Replica) => Promise<T>, onPrimary: () => Promise<T>): Promise<T> => {
    const replica = pick()
    if (replica) {
      try {
        const result = await work(replica)
        emitSignal({ kind: 'laggingRead', servedBy: 'replica' })
        return result
      } catch (error) {
        if (replicaIsDown(error)) {
          replica.healthy = false
          replica.downs++
          emitSignal({ kind: 'dependencyError', dependency: 'replica' })
        }
      }
    }
    const result = await onPrimary()
    emitSignal({ kind: 'laggingRead', servedBy: 'primary' })
    return result
  }

  return {
    read: (text, parameters) =>
      use(
        async (replica) => {
          const client = await replica.pool.connect()
          try {
            const result = await client.query(text, parameters.slice())
            client.release()
            return { rows: result.rows }
          } catch (error) {
            // a client whose statement failed on a replica that may be going away is not handed out again
            client.release(true)
            throw error
          }
        },
        () => onPrimary(text, parameters),
      ),
    use: (work, onPrimary) => use((replica) => work(replica.db), onPrimary),
    stats: () => replicas.map((r) => ({ name: r.name, healthy: r.healthy, lagSeconds: r.lagSeconds })),
    probe,
    async end() {
      clearInterval(timer)
      await probing
      await Promise.allSettled(replicas.map((r) => r.pool.end()))
    },
  }
}

/** A Kysely whose every statement is a ReplicaSet read: single statements, no transaction. */
function laggingKysely(set: ReplicaSet, log: (event: LogEvent) => void): Kysely<Database> {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      return (await set.read(query.sql, query.parameters)) as QueryResult<R>
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('mayLag(db): streaming is not supported')
    },
  }
  const refuse = () => Promise.reject(new Error('mayLag(db) is for single reads: a transaction runs on the primary (db.transaction())'))
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: refuse,
    commitTransaction: refuse,
    rollbackTransaction: refuse,
    releaseConnection: async () => undefined,
    // the primary's destroy ends the replica set (db/database.ts)
    destroy: async () => undefined,
  }
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    plugins: [jsonArraysPlugin()],
    log,
  })
}

const lagging = new WeakMap<Kysely<Database>, Kysely<Database>>()

const sets = new WeakMap<Kysely<Database>, ReplicaSet>()

/** Called by db/database.ts for a PostgreSQL primary with database.replicas. */
export function attachReplicas(db: Kysely<Database>, set: ReplicaSet, log: (event: LogEvent) => void): void {
  lagging.set(db, laggingKysely(set, log))
  sets.set(db, set)
}

/**
 * `db` for a read that MAY LAG: a replica's copy, seconds behind the primary, is good enough for
 * what the caller does with the result. See the rule at the top of this file: never for session or
 * token validity, revocation, single-use redemption, limiter state, or a read after a write in the
 * same request. Without replicas (the default), on PGlite and for a transaction: `db` itself.
 */
export function mayLag(db: Kysely<Database>): Kysely<Database> {
  return lagging.get(db) ?? db
}

/**
 * `run` in a read-only, repeatable-read transaction (one snapshot for all its reads) that MAY LAG:
 * on a healthy replica (PostgreSQL runs such transactions on a hot standby), else on `db`. The same
 * rule as mayLag; `run` must only read, because it runs again on the primary when the replica
 * fails part way through. Without replicas: `db`'s own transaction.
 */
export function mayLagSnapshot<T>(db: Kysely<Database>, run: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const set = sets.get(db)
  return set ? set.use((replica) => readSnapshot(replica, run), () => readSnapshot(db, run)) : readSnapshot(db, run)
}

/** `run` in a read-only, repeatable-read transaction on `db` itself (the primary: never lags). */
export function readSnapshot<T>(db: Kysely<Database>, run: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(run)
}
