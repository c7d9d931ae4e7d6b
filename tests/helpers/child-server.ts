/**
 * What the IAM and gateway test helpers share: run a built Nitro server as a child process,
 * collect its output line by line, resolve with the port from its "Listening on" line, and stop it
 * (SIGTERM, SIGKILL after 5 s, then the caller's cleanup). A runner that abandons a hook never
 * calls stop(), so the child is also killed when the test process exits.
 */
import type { ChildProcess } from 'node:child_process'

export interface ListeningChild {
  port: number
  /** everything the process printed, one entry per line */
  logs: string[]
  stop(): Promise<void>
}

const START_TIMEOUT_MS = 45_000

/** Resolves once `child` listens; rejects (after cleanup) with `code` and `logs` when it exits first. */
export async function untilListening(name: string, child: ChildProcess, cleanup: () => Promise<void> | void): Promise<ListeningChild> {
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  child.once('exit', () => process.off('exit', killOnExit))
  const running = () => child.exitCode === null && child.signalCode === null
  const logs: string[] = []
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    if (running()) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
      if (running()) child.kill('SIGKILL')
    }
    await cleanup()
  }
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${logs.join('\n')}`)), START_TIMEOUT_MS)
    const onLine = (line: string) => {
      logs.push(line)
      const match = /Listening on https?:\/\/[^\s]*:(\d+)/.exec(line)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    }
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffer = ''
      stream.on('data', (chunk: Buffer) => {
        buffer += chunk.toString()
        const lines = buffer.split('\n')
        buffer = lines.pop() ?? ''
        lines.forEach(onLine)
      })
    }
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
