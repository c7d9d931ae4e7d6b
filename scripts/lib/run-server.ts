/**
 * The one way this repository runs a built server as a child process: the test
 * helpers (tests/helpers/child-server.ts), `npm start` (scripts/start.mjs) and the benchmark
 * (bench/) use it. A Nitro server started with PORT=0 prints "Listening on http://host:port": the
 * port comes from that line, so nothing has to pick a free port ahead of the child (a race).
 * Stopping is SIGTERM (graceful shutdown finishes in-flight requests), then SIGKILL when the child
 * does not exit in time. Plain TypeScript with erasable syntax only: Node runs it as it is.
 */
import { spawn, type ChildProcess } from 'node:child_process'

export interface ListeningChild {
  port: number
  /** everything the process printed, one entry per line (empty when started with keepLogs: false) */
  logs: string[]
  stop(): Promise<void>
}

export interface ListenOptions {
  /** reject when no "Listening on" line came within this many ms */
  startTimeoutMs?: number
  /**
   * false: read the output but keep only the lines before "Listening" (a benchmark with the request
   * log on would otherwise hold every request line in memory). Default true.
   */
  keepLogs?: boolean
}

const DEFAULT_START_TIMEOUT_MS = 45_000
const DEFAULT_GRACE_MS = 5_000

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

/** SIGTERM, then SIGKILL when `child` has not exited after `graceMs`. Resolves once it is gone (or killed). */
export async function stopChild(child: ChildProcess, graceMs: number = DEFAULT_GRACE_MS): Promise<void> {
  if (!isRunning(child)) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
  clearTimeout(timer)
  if (isRunning(child)) child.kill('SIGKILL')
}

/** Calls `onLine` for every complete line `stream` emits (and the unterminated rest at its end). */
export function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = ''
  stream.on('data', (chunk: Buffer | string) => {
    buffer += chunk.toString()
    const lines = buffer.split('\n')
    buffer = lines.pop() ?? ''
    lines.forEach(onLine)
  })
  stream.on('end', () => {
    if (buffer) onLine(buffer)
    buffer = ''
  })
}

/**
 * Resolves once `child` prints its "Listening on" line; rejects (after stop and cleanup) with
 * `code` and `logs` when it exits first or never listens. A runner that abandons a hook never
 * calls stop(), so the child is also killed when this process exits.
 */
export async function untilListening(
  name: string,
  child: ChildProcess,
  cleanup: () => Promise<void> | void,
  options: ListenOptions = {},
): Promise<ListeningChild> {
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  child.once('exit', () => process.off('exit', killOnExit))
  const logs: string[] = []
  let listening = false
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await stopChild(child)
    await cleanup()
  }
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start:\n${logs.join('\n')}`)),
      options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    )
    const onLine = (line: string) => {
      if (listening && options.keepLogs === false) return
      logs.push(line)
      const match = /Listening on https?:\/\/[^\s]*:(\d+)/.exec(line)
      if (match && !listening) {
        listening = true
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    }
    for (const stream of [child.stdout, child.stderr]) if (stream) eachLine(stream, onLine)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(Object.assign(new Error(`${name} exited with ${code}:\n${logs.join('\n')}`), { code, logs }))
    })
  }).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { port, logs, stop }
}

export interface NodeServerOptions extends ListenOptions {
  name: string
  /** the script node runs (a built server's server/index.mjs, or a small server of the benchmark) */
  entry: string
  args?: string[]
  cwd?: string
  /** the child's whole environment (PORT=0 lets it choose a free port) */
  env: NodeJS.ProcessEnv
  cleanup?: () => Promise<void> | void
}

export interface NodeServer extends ListeningChild {
  url: string
  child: ChildProcess
}

/** Spawns `node entry ...args` and resolves once it listens on 127.0.0.1 (or rejects with its output). */
export async function startNodeServer(options: NodeServerOptions): Promise<NodeServer> {
  const child = spawn(process.execPath, [options.entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const listening = await untilListening(options.name, child, options.cleanup ?? (() => {}), options)
  return { ...listening, url: `http://127.0.0.1:${listening.port}`, child }
}
