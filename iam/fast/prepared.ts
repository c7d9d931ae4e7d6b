/**
 * Named prepared statements for PostgreSQL (see docs/performance.md). Kysely sends every statement unnamed, so
 * PostgreSQL parses and plans it again on every execution: for full authentication's one read that
 * planning was about 600 of the 700 microseconds of backend CPU per request. A name makes `pg`
 * send Parse once per connection and only Bind/Execute afterwards; PostgreSQL keeps the parsed
 * statement and, after its first executions, a generic plan.
 *
 * Which statements get a name: data statements (SELECT, INSERT, UPDATE, DELETE, WITH) up to
 * MAX_NAMED distinct texts per process. The bound keeps a query builder that produces a new text
 * per input shape (an IN list of varying length) from growing every backend's statement cache
 * without end: past it, new texts go unnamed (Kysely's default). Transaction control and DDL (migrations)
 * are never named.
 *
 * A migration run by another instance can change a table under a prepared statement. PostgreSQL
 * re-plans by itself, except when the statement's result columns would change (SQLSTATE 0A000,
 * "cached plan must not change result type"): a `*` result (`select *`, `"t".*`, `returning *`)
 * grows with every column an expand migration adds. Outside a transaction that statement is then
 * retried and sent unnamed on that connection from then on, so a rolling upgrade costs a re-plan,
 * never an error. Inside a transaction the refusal has already lost the transaction, so there a
 * `*` statement is never named (docs/operations.md, "Rolling upgrades"): the connection knows it is
 * in one from the `begin` and `commit` / `rollback` texts Kysely sends through it.
 *
 * Held equal to unnamed statements by tests/unit/prepared-equivalence.test.ts (PostgreSQL).
 */

const MAX_NAMED = 256
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i
const PLAN_CHANGED = '0A000'
// a result of all a table's columns: `*` or `"t".*` standing alone in a list (count(*) is not)
const STAR_RESULT = /(?:^|[\s,])(?:"[^"]+"\.)?\*(?=[\s,]|$)/
const OPENS = /^\s*(begin|start\s+transaction)\b/i
// `rollback to savepoint` stays inside the transaction
const CLOSES = /^\s*(commit|end|abort|rollback(?!\s+to\b))\b/i

// text -> name, shared by every connection of the process (a name always means the same text)
const names = new Map<string, string>()

/** The name `text` is prepared under, or undefined when it goes unnamed. */
export function preparedName(text: string): string | undefined {
  const known = names.get(text)
  if (known !== undefined) return known
  if (names.size >= MAX_NAMED || !DATA_STATEMENT.test(text)) return undefined
  const name = `iam_${names.size + 1}`
  names.set(text, name)
  return name
}

/**
 * Forgets every name given. For tests only, where one process runs many files: a file that fills
 * the bound would leave the next without names. Only safe once no open connection holds them.
 */
export function forgetPreparedNames(): void {
  names.clear()
}

type QueryResultLike = { rows: unknown[] }
type Query = (config: { text: string; values?: unknown[]; name?: string }) => Promise<QueryResultLike>

/**
 * What a connection's `query(text, values)` becomes: the named form when the text has a name and
 * has not been refused on this connection (`unnamed`, one set per connection).
 */
export async function queryPrepared(query: Query, unnamed: Set<string>, text: string, values: unknown[], inTransaction = false): Promise<QueryResultLike> {
  const name = unnamed.has(text) || (inTransaction && STAR_RESULT.test(text)) ? undefined : preparedName(text)
  if (name === undefined) return query({ text, values })
  try {
    return await query({ name, text, values })
  } catch (error) {
    if ((error as { code?: unknown }).code !== PLAN_CHANGED) throw error
    unnamed.add(text)
    return query({ text, values })
  }
}

/** pg's Query class, as this builds it: text, values, and a callback for the answer. */
export type PgQueryClass = new (text: string, values: unknown[] | undefined, callback: (error: Error | undefined, result: QueryResultLike) => void) => object

/**
 * The `query` method of a pg client class with named prepared statements: `query(text, values)`,
 * the form Kysely's driver and direct.ts call, goes through queryPrepared; any other form goes to
 * `plain` (pg's own method) untouched. The query is handed to pg as a `Query` built from the text,
 * named afterwards and answered through its callback: given a config object, pg copies its every
 * property descriptor into a new one and wraps the answer in two promises, on every query
 * (docs/performance.md, the fast paths).
 */
export function preparedQueryMethod(Query: PgQueryClass, plain: (this: unknown, ...args: unknown[]) => unknown): (this: object, ...args: unknown[]) => unknown {
  // per connection: the statements it sends unnamed since PostgreSQL refused their plan
  const unnamed = new WeakMap<object, Set<string>>()
  // the connections inside a transaction now
  const inTransaction = new WeakSet<object>()
  const follow = (client: object, text: string) => {
    if (OPENS.test(text)) inTransaction.add(client)
    else if (CLOSES.test(text)) inTransaction.delete(client)
  }
  const unnamedOf = (client: object): Set<string> => {
    let set = unnamed.get(client)
    if (!set) unnamed.set(client, (set = new Set()))
    return set
  }
  const submit = (client: object, { text, values, name }: { text: string; values?: unknown[]; name?: string }) =>
    new Promise<QueryResultLike>((resolve, reject) => {
      const query = new Query(text, values, (error, result) => {
        if (!error) return resolve(result)
        // as pg's own promise does: a stack that leads back to the caller, not the socket's read
        Error.captureStackTrace(error)
        reject(error)
      })
      // @types/pg leaves out the name, which pg reads from the query when it sends it
      if (name) (query as { name?: string }).name = name
      plain.call(client, query)
    })
  return function (this: object, ...args: unknown[]) {
    const [text, values] = args
    if (typeof text === 'string') follow(this, text)
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) return queryPrepared((query) => submit(this, query), unnamedOf(this), text, values, inTransaction.has(this))
    return plain.apply(this, args)
  }
}
