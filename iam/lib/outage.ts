/**
 * Tells a dependency outage (PostgreSQL or Redis unreachable, or refusing work while it starts or
 * stops) from every other failure. The error handler answers the first 503 "Service unavailable"
 * with Retry-After; everything else (a constraint violation, a syntax error, a
 * bug) stays a 500, so a real defect is never hidden behind "try again later".
 *
 * Recognised by what the drivers actually throw: socket error codes, PostgreSQL SQLSTATEs of the
 * connection classes, pg/pg-pool's own connection messages and ioredis's connection errors (the
 * storage layer knows those: storage/redis-errors.ts). The cause chain (h3 wraps what a handler
 * throws) and AggregateError members (a host name that resolves to several addresses) are followed.
 */
import { isRedisConnectionError } from './storage/redis-errors'

/**
 * pg's error for a statement past `query_timeout`; in pipeline mode it then closes the connection
 * (fast/pipelined.ts bounds its statements with it).
 */
export const STATEMENT_TIMED_OUT = 'Query read timeout'

/** Thrown by fast/pipelined.ts for a statement sent after end(): the database is being closed. */
export const PIPELINES_CLOSED = 'Pipelined database connections are closed'

/** Socket-level failures: the peer is gone, refused, unreachable or silent. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * PostgreSQL SQLSTATEs meaning "not now" rather than "not this": connection exceptions (class 08),
 * too many connections, and the server shutting down, crashed or still starting.
 */
const PG_UNAVAILABLE = /^(08...|53300|57P01|57P02|57P03)$/

/** pg and pg-pool messages for a lost or unobtainable connection (they carry no code). */
const DRIVER_MESSAGES = [
  /^Connection terminated/, // pg: the server or the network closed the connection (also on connect timeout)
  /^timeout exceeded when trying to connect$/, // pg-pool: connectionTimeoutMillis passed
  /^timeout expired$/, // pg: a new connection's handshake passed database.connectTimeoutMs
  /^Client has encountered a connection error and is not queryable$/, // pg
  /^Cannot use a pool after calling end on the pool$/, // pg-pool during shutdown
  new RegExp(`^${STATEMENT_TIMED_OUT}$`), // pg: a pipelined statement unanswered past its bound (fast/pipelined.ts)
  new RegExp(`^${PIPELINES_CLOSED}$`), // fast/pipelined.ts during shutdown
]

/**
 * Work the IAM itself bounds and could not take now (the imported-hash workers' queue full or past
 * their deadline): "not now" as an outage is, so the person is told to retry, never that a right
 * password is wrong (which would also spend their sign-in budget).
 */
export class CapacityExceeded extends Error {
  override name = 'CapacityExceeded'
}

function isOutageItself(error: Error & { code?: unknown }): boolean {
  if (error instanceof CapacityExceeded) return true
  if (typeof error.code === 'string' && (SOCKET_CODES.has(error.code) || PG_UNAVAILABLE.test(error.code))) return true
  if (isRedisConnectionError(error)) return true
  return DRIVER_MESSAGES.some((pattern) => pattern.test(error.message))
}

/** True when `error` (or its cause, or an aggregated member) is a PostgreSQL/Redis outage. */
export function isDependencyOutage(error: unknown): boolean {
  const seen = new Set<unknown>()
  const pending: unknown[] = [error]
  while (pending.length) {
    const current = pending.pop()
    if (!(current instanceof Error) || seen.has(current)) continue
    seen.add(current)
    if (isOutageItself(current)) return true
    pending.push(current.cause)
    if (current instanceof AggregateError) pending.push(...current.errors)
  }
  return false
}

/** Seconds a client should wait before retrying during an outage (the Retry-After value). */
export const OUTAGE_RETRY_AFTER_SECONDS = 2
