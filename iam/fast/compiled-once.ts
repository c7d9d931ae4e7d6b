/**
 * A hot statement compiled once and run with fresh parameters (see docs/performance.md). Kysely builds the query
 * tree, runs the plugins over it and compiles it to SQL on every call, main-thread CPU on every
 * statement (docs/performance.md, the fast paths), for SQL that never changes. `compiledOnce` builds the query
 * on its first use per database with placeholder arguments, remembers which compiled parameter is
 * which argument, and afterwards only swaps the values in. The statement still goes through
 * `db.executeQuery`: the driver, the statement counter and the plugins' result hooks run as for any Kysely query.
 *
 * The shape must not depend on the values: each argument must land in the SQL as one parameter
 * (checked at the first compile), and a value may not be `undefined` (Kysely leaves such a column
 * out, another shape) nor an array (db/json-arrays-plugin.ts rewrites arrays while compiling, which a
 * swapped-in value would skip). Both are refused at run time rather than sent wrong.
 *
 * Held equal to the plain builder's compiled query by tests/unit/compiled-once-equivalence.test.ts.
 */
import { createQueryId, type Compilable, type CompiledQuery, type Kysely, type QueryResult } from 'kysely'

/** Arguments: values, or plain objects of values (one level: `{ family: {...}, token: {...} }`). */
type Args = Record<string, unknown>

/** Where each compiled parameter comes from: an argument's path, or a constant of the query itself. */
type Slot = { path: [string] | [string, string] } | { constant: unknown }

interface Compiled<R> {
  query: CompiledQuery<R>
  slots: Slot[]
}

const MARK = '\u0000compiled-once:'

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype

/** The placeholder of every argument (and of every field of an object argument), by its path. */
function placeholders(args: Args): { values: Args; paths: Map<string, Slot> } {
  const paths = new Map<string, Slot>()
  const values: Args = {}
  for (const [key, value] of Object.entries(args)) {
    if (!isPlainObject(value)) {
      values[key] = MARK + key
      paths.set(MARK + key, { path: [key] })
      continue
    }
    const inner: Record<string, string> = {}
    for (const field of Object.keys(value)) {
      inner[field] = `${MARK}${key}.${field}`
      paths.set(inner[field], { path: [key, field] })
    }
    values[key] = inner
  }
  return { values, paths }
}

function compile<DB, A extends Args, R>(db: Kysely<DB>, build: (db: Kysely<DB>, args: A) => Compilable<R>, args: A): Compiled<R> {
  const { values, paths } = placeholders(args)
  const query = build(db, values as A).compile()
  const used = new Set<string>()
  const slots = query.parameters.map((parameter): Slot => {
    const slot = typeof parameter === 'string' ? paths.get(parameter) : undefined
    if (!slot) return { constant: parameter }
    used.add(parameter as string)
    return slot
  })
  const unused = [...paths.keys()].filter((mark) => !used.has(mark))
  if (unused.length) throw new Error(`compiledOnce: not a parameter of the query: ${unused.map((m) => m.slice(MARK.length)).join(', ')}`)
  return { query, slots }
}

function valueAt(args: Args, path: [string] | [string, string]): unknown {
  const value = path.length === 1 ? args[path[0]] : (args[path[0]] as Record<string, unknown> | undefined)?.[path[1]]
  if (value === undefined || Array.isArray(value)) throw new Error(`compiledOnce: ${path.join('.')} must be a value (not undefined, not an array)`)
  return value
}

/** A statement compiled once: call it to run; `build` is the plain Kysely statement it stands for. */
export type CompiledOnce<DB, A extends Args, R> = ((db: Kysely<DB>, args: A) => Promise<QueryResult<R>>) & {
  build: (db: Kysely<DB>, args: A) => Compilable<R>
}

/** `build` compiled once per database; each call runs it with `args`' values as the parameters. */
export function compiledOnce<DB, A extends Args, R>(build: (db: Kysely<DB>, args: A) => Compilable<R>): CompiledOnce<DB, A, R> {
  const byDb = new WeakMap<Kysely<DB>, Compiled<R>>()
  const run = async (db: Kysely<DB>, args: A): Promise<QueryResult<R>> => {
    let compiled = byDb.get(db)
    if (!compiled) byDb.set(db, (compiled = compile(db, build, args)))
    const parameters = compiled.slots.map((slot) => ('path' in slot ? valueAt(args, slot.path) : slot.constant))
    // a fresh id: plugins pass state between their hooks by it, and calls may overlap
    return db.executeQuery<R>({ ...compiled.query, queryId: createQueryId(), parameters })
  }
  // the equivalence test (tests/unit/compiled-once-equivalence.test.ts) runs both and compares
  return Object.assign(run, { build })
}
