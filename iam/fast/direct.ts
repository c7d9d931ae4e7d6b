/**
 * A fixed statement sent straight to PostgreSQL, for the few that run on every request (full
 * authentication's read, the refresh rotation, introspection's read; see docs/performance.md).
 * Through Kysely, each call also builds a query id, runs the plugins' result hooks, logs the
 * statement (our counter, which classifies the text with two regular expressions every time) and
 * wraps the result, CPU and garbage on every statement (docs/performance.md, the fast paths), for
 * SQL whose text never changes.
 *
 * A read goes out on a pipelined connection (pipelined.ts); a write (or a locking read) takes a
 * pooled connection, because it may wait for a row lock, and everything pipelined behind it on its
 * connection would wait with it. A plain read waits for no row.
 *
 * What stays the same: the statement is a named prepared statement (prepared.ts), an outage is a
 * 503 within 2 s, it is counted once in iam_db_statements_total, with its kind worked out once;
 * errors are pg's own, as through Kysely. Inside a transaction, or on PGlite (no pool), the
 * statement goes through Kysely.
 *
 * Held equal to the same text through Kysely by tests/unit/direct-equivalence.test.ts.
 */
import { CompiledQuery, type Kysely } from 'kysely'
import type { Database } from '../db/schema'
import { emitSignal, statementKind, type IamSignal } from '../lib/signals'
import { tracingActive } from '../../shared/tracing'
import { traceStatement } from '../lib/tracing'
import type { Pipelines } from './pipelined'

/** What a statement needs of a pooled connection: Kysely's driver calls the same two methods. */
export interface DirectPool {
  connect(): Promise<{ query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>; release(): void }>
}

// The pg pool and the pipelined connections behind each PostgreSQL Kysely (db/database.ts attaches
// them when it opens one); PGlite and a transaction have none.
const connections = new WeakMap<Kysely<Database>, { pool: DirectPool; pipelines: Pipelines }>()

/** Called by db/database.ts for each PostgreSQL database it opens. */
export function attachDirectConnections(db: Kysely<Database>, attached: { pool: DirectPool; pipelines: Pipelines }): void {
  connections.set(db, attached)
}

/** The pool of a PostgreSQL database opened by createDatabase; undefined on PGlite and for a transaction. */
export const directPool = (db: Kysely<Database>): DirectPool | undefined => connections.get(db)?.pool

/** The pipelined connections of a PostgreSQL database opened by createDatabase (pipelined.ts); undefined on PGlite and for a transaction. */
export const directPipelines = (db: Kysely<Database>): Pipelines | undefined => connections.get(db)?.pipelines

const LOCKING_READ = /\bfor\s+(no\s+key\s+update|update|key\s+share|share)\b/i

/**
 * `text` as a function of its parameters, returning the rows; `text` kept for the equivalence test,
 * `pipelined` says which connections it takes on PostgreSQL.
 */
export type DirectStatement<R> = ((db: Kysely<Database>, params: unknown[]) => Promise<R[]>) & { text: string; pipelined: boolean }

export function directStatement<R>(text: string): DirectStatement<R> {
  const counted: IamSignal = { kind: 'dbStatement', statement: statementKind(text) }
  const pipelined = counted.statement === 'read' && !LOCKING_READ.test(text)
  const run = async (db: Kysely<Database>, params: unknown[]): Promise<R[]> => {
    const pipelines = pipelined ? directPipelines(db) : undefined
    if (pipelines) {
      emitSignal(counted)
      // past Kysely, so past its statement log: the span is made here (through Kysely, the log makes it)
      if (tracingActive) return (await traceStatement(text, () => pipelines.query(text, params))).rows as R[]
      return (await pipelines.query(text, params)).rows as R[]
    }
    const pool = directPool(db)
    if (!pool) return (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows as R[]
    const client = await pool.connect()
    emitSignal(counted)
    try {
      if (tracingActive) return (await traceStatement(text, () => client.query(text, params))).rows as R[]
      return (await client.query(text, params)).rows as R[]
    } finally {
      client.release()
    }
  }
  return Object.assign(run, { text, pipelined })
}
