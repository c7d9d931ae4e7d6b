/**
 * Structured JSON logs through pino, one line per event, for both apps (the gateway builds its
 * logger here too: server/utils/log.ts). Values under keys that can carry credentials are replaced
 * before anything is written: tokens, secrets and passwords never reach a log.
 *
 * The destination is asynchronous (pino's SonicBoom with `sync: false`): a `console.*` write
 * blocks the event loop on a slow stdout pipe, which made the request log the bottleneck under
 * load. Lines are handed to it in batches (batchedStdout). pino flushes what is buffered when the
 * process exits, so the last lines of a shutdown are kept. Tests read a line some milliseconds
 * after the response that caused it (tests/helpers/logs.ts waits for it).
 */
import pino from 'pino'
import { traceLogFields, tracingConfigured } from './tracing'

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  child(fields: LogFields): Logger
}

const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|signature|pepper|otp|apikey|api-key|jwk|private/i
const MAX_DEPTH = 6

/** An Error as plain fields: its code when it has one, and its `cause` chain (bounded like objects). */
function serialiseError(error: Error, depth: number): LogFields {
  const out: LogFields = { name: error.name, message: error.message, stack: error.stack }
  const { code } = error as { code?: unknown }
  if (typeof code === 'string' || typeof code === 'number') out.code = code
  if (error.cause !== undefined) out.cause = redact(error.cause, depth + 1)
  return out
}

/** Deep copy with every credential-shaped key replaced by "[redacted]"; Errors become plain fields. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value
  if (value instanceof Error) return serialiseError(value, depth)
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1))
  const out: LogFields = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? '[redacted]' : redact(item, depth + 1)
  }
  return out
}

/** A credential-shaped key or a nested value (which redact walks) anywhere at the top level. */
function needsRedaction(fields: LogFields): boolean {
  // for...in over own keys, not Object.entries: this runs for every line (each request's), and
  // entries allocates an array per key
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue
    const value = fields[key]
    if (SECRET_KEY.test(key) || (value !== null && typeof value === 'object')) return true
  }
  return false
}

// Most lines (the request log line of every request) hold only plain values under ordinary keys:
// they pass as they are instead of being copied.
const redactFields = (fields: LogFields) => (needsRedaction(fields) ? (redact(fields) as LogFields) : fields)

/** How long a line may wait so that the lines of a busy moment go out in one write. */
const BATCH_WINDOW_MS = 10

/**
 * SonicBoom writes as soon as its previous write finished, so under load it issued about one
 * write (a thread-pool round trip and its completion callback) per request line, a large part of
 * a cheap request's cost. Lines are gathered for BATCH_WINDOW_MS and handed over together: at
 * most 100 writes a second, whatever the rate. A line waits at most that long; at exit whatever is
 * gathered goes to SonicBoom before pino's own exit handler flushes it (registered first, so it
 * runs first).
 */
function batchedStdout(): pino.DestinationStream {
  let gathered = ''
  let timer: NodeJS.Timeout | undefined
  const handOver = () => {
    timer = undefined
    if (!gathered) return
    const chunk = gathered
    gathered = ''
    sonic.write(chunk)
  }
  process.once('exit', handOver)
  const sonic = pino.destination({ dest: 1, sync: false })
  return {
    write(line: string) {
      gathered += line
      timer ??= setTimeout(handOver, BATCH_WINDOW_MS).unref()
    },
  }
}

// One stdout destination per process: two SonicBooms on fd 1 would interleave their buffers.
let stdout: pino.DestinationStream | undefined
const stdoutDestination = () => (stdout ??= batchedStdout())

function wrap(instance: pino.Logger): Logger {
  return {
    debug: (msg, fields) => instance.debug(fields ?? {}, msg),
    info: (msg, fields) => instance.info(fields ?? {}, msg),
    warn: (msg, fields) => instance.warn(fields ?? {}, msg),
    error: (msg, fields) => instance.error(fields ?? {}, msg),
    // child bindings do not pass through formatters.log: redacted here
    child: (fields) => wrap(instance.child(redactFields(fields))),
  }
}

/**
 * A logger at `level` with `base` on every line. `write` replaces the asynchronous stdout (the
 * CLI's stderr, unit tests): it gets each line without its newline, synchronously.
 */
export function createLogger(level: LogLevel = 'info', base: LogFields = {}, write?: (line: string) => void): Logger {
  const destination = write ? { write: (chunk: string) => write(chunk.replace(/\n$/, '')) } : stdoutDestination()
  const instance = pino(
    {
      level,
      // no pid/hostname: a line carries what the app puts there
      base: null,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      // key-pattern redaction rather than pino's path list: a credential is caught at any depth,
      // and an Error (as `err` or under any key) is serialised with its cause
      formatters: {
        level: (label) => ({ level: label }),
        log: redactFields,
      },
      // with tracing configured, a line written inside a span names it (shared/tracing.ts);
      // without, no mixin runs at all
      ...(tracingConfigured(process.env) ? { mixin: () => traceLogFields() } : {}),
    },
    destination,
  )
  return wrap(instance).child(base)
}
