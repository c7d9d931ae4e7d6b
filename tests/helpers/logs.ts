/**
 * Reading a server's log from a test. Both apps log through pino to an asynchronous stdout
 * (shared/log.ts), so the line a request caused arrives some milliseconds after its response:
 * a test waits for it here instead of reading `logs` at once.
 *
 * - `waitForLog` / `waitForLogs`: poll until a line (or n lines) matching a predicate arrived.
 * - `flushedLogs`: for asserting that something is ABSENT (no token in the log). It sends a marker
 *   request and waits for that request's own line: the log is written in order, so every line
 *   caused before it is in by then, and an absence test cannot pass by reading too early.
 */
import { randomUUID } from 'node:crypto'

/** A started server (IamServer, GatewayServer, the shared IAM): its output so far, one entry per line. */
export interface LogSource {
  readonly logs: string[]
}

const POLL_MS = 15
const DEFAULT_TIMEOUT_MS = 5_000
const SHOWN_LINES = 40

function timedOut(source: LogSource, what: string, timeoutMs: number): Error {
  const seen = source.logs.slice(-SHOWN_LINES)
  return new Error(`no log line ${what} after ${timeoutMs} ms; the last ${seen.length} lines:\n${seen.join('\n')}`)
}

/** Resolves with the first `count` lines matching `match` once they are in the log (by default within 5 s). */
export async function waitForLogs(
  source: LogSource,
  match: (line: string) => boolean,
  count: number,
  what = 'matching the predicate',
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = source.logs.filter(match)
    if (found.length >= count) return found.slice(0, count)
    if (Date.now() > deadline) throw timedOut(source, `${what} (${found.length} of ${count})`, timeoutMs)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/** Resolves with the first line matching `match` (a predicate, or a substring) once it is in the log. */
export async function waitForLog(source: LogSource, match: string | ((line: string) => boolean), timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string> {
  const predicate = typeof match === 'string' ? (line: string) => line.includes(match) : match
  const what = typeof match === 'string' ? `containing ${JSON.stringify(match)}` : 'matching the predicate'
  const [line] = await waitForLogs(source, predicate, 1, what, timeoutMs)
  return line!
}

/** The request line of the request with id `requestId` (the `X-Request-Id` both apps echo). */
export function requestLine(source: LogSource, requestId: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string> {
  return waitForLog(source, (line) => line.includes('"msg":"request"') && line.includes(`"requestId":"${requestId}"`), timeoutMs)
}

/**
 * The whole log once everything written before this call is in: sends a marker request
 * (`GET path` with its own request id; the IAM's `/health` by default, any path the server
 * answers works) and waits for its request line.
 */
export async function flushedLogs(server: LogSource & { url: string }, path = '/health'): Promise<string[]> {
  const marker = `log-marker-${randomUUID()}`
  const res = await fetch(`${server.url}${path}`, { headers: { 'x-request-id': marker } })
  await res.body?.cancel()
  await requestLine(server, marker)
  return server.logs
}
