/**
 * The IAM's spans below the request (shared/tracing.ts has the request's own and the switch):
 * PostgreSQL statements and shared-store operations. Every function here is called only while
 * `tracingActive` is true; with tracing off the callers skip them on that one check.
 *
 * A statement span names the operation and the table, never the statement's text or its values;
 * a store span names the operation, never the key (keys hold e-mail hashes, token ids, addresses).
 */
import { SpanKind, type Attributes } from '@opentelemetry/api'
import { recordFinishedSpan, withSpan } from '../../shared/tracing'
import type { AtomicOps } from './storage/atomic'
import type { SharedStore } from './storage'

// The statement's verb, after any leading comment; its table for the plain forms (no CTE)
const VERB = /^\s*(?:\/\*[\s\S]*?\*\/\s*)?([a-z]+)/i
const TABLE = /\b(?:from|into|update)\s+"?([a-z_][a-z0-9_]*)"?/i
const VERBS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'START', 'SET', 'LOCK', 'CREATE', 'ALTER', 'DROP'])

/** The span name and attributes of a statement (OpenTelemetry database semantic conventions). */
export function statementAttributes(sqlText: string): { name: string; attributes: Attributes } {
  const verb = VERB.exec(sqlText)?.[1]?.toUpperCase()
  const operation = verb && VERBS.has(verb) ? verb : 'OTHER'
  const attributes: Attributes = { 'db.system.name': 'postgresql', 'db.operation.name': operation }
  const table = operation === 'SELECT' || operation === 'INSERT' || operation === 'UPDATE' || operation === 'DELETE' ? TABLE.exec(sqlText)?.[1] : undefined
  if (table) attributes['db.collection.name'] = table
  return { name: table ? `${operation} ${table}` : operation, attributes }
}

/** A statement Kysely already ran (its log event: db/database.ts), as a span under the current one. */
export function recordStatementSpan(sqlText: string, durationMs: number, error?: unknown): void {
  const { name, attributes } = statementAttributes(sqlText)
  recordFinishedSpan(name, attributes, durationMs, SpanKind.CLIENT, error)
}

/** A statement sent past Kysely (fast/direct.ts), in a span. */
export function traceStatement<T>(sqlText: string, run: () => Promise<T>): Promise<T> {
  const { name, attributes } = statementAttributes(sqlText)
  return withSpan(name, attributes, run, SpanKind.CLIENT)
}

/**
 * `store` with each operation in a span: the plain ones and the atomic ones (one Redis round trip
 * each, a command or a script). Boot wraps the store with it only when tracing is on.
 */
export function traceStore(store: SharedStore): SharedStore {
  const system: Attributes = store.kind === 'redis' ? { 'db.system.name': 'redis' } : { 'iam.store.driver': 'memory' }
  const traced = <T>(operation: string, run: () => Promise<T>) => withSpan(`store ${operation}`, { ...system, 'db.operation.name': operation }, run, SpanKind.CLIENT)
  const atomic = new Proxy(store.atomic, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function' || typeof key !== 'string') return value
      return (...args: unknown[]) => traced(key, () => Promise.resolve(value.apply(target, args)))
    },
  }) satisfies AtomicOps
  return {
    ...store,
    atomic,
    get: <T>(key: string) => traced('get', () => store.get<T>(key)),
    set: (key, value, ttlMs) => traced('set', () => store.set(key, value, ttlMs)),
    setIfAbsent: (key, value, ttlMs) => traced('setIfAbsent', () => store.setIfAbsent(key, value, ttlMs)),
    delete: (key) => traced('delete', () => store.delete(key)),
    increment: (key, ttlMs, by) => traced('increment', () => store.increment(key, ttlMs, by)),
    ttl: (key) => traced('ttl', () => store.ttl(key)),
  }
}
