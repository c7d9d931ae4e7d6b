/**
 * Starts the built gateway (`node .output/server/index.mjs`, or GATEWAY_OUTPUT_DIR) as a child
 * process with its own GATEWAY_CONFIG file; resolves once it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './build'
import { untilListening } from './child-server'

/** The built gateway entry (GATEWAY_OUTPUT_DIR when set, for side-by-side builds). */
export const gatewayEntry = () => join(process.env.GATEWAY_OUTPUT_DIR || join(ROOT, '.output'), 'server', 'index.mjs')

export interface GatewayServer {
  url: string
  port: number
  /** everything the process printed, one entry per line */
  logs: string[]
  process: ChildProcess
  stop(): Promise<void>
}

export interface GatewayStartOptions {
  /** the GATEWAY_CONFIG content (iam, cookieSecret, OAuthProviders) */
  config?: Record<string, unknown>
  /** 0 (default) = any free port */
  port?: number
  env?: Record<string, string>
}

/** Runs the built gateway; resolves once it listens on 127.0.0.1. */
export async function startGateway(options: GatewayStartOptions = {}): Promise<GatewayServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'))
  const configPath = join(dir, 'gateway.json')
  writeFileSync(configPath, JSON.stringify(options.config ?? {}))
  const child = spawn(process.execPath, [gatewayEntry()], {
    cwd: dir,
    // NODE_ENV stays the test runner's (not production): the gateway's dev profile, like the IAM's
    env: {
      ...process.env,
      PORT: String(options.port ?? 0),
      HOST: '127.0.0.1',
      GATEWAY_CONFIG: configPath,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { port, logs, stop } = await untilListening('gateway', child, () => rmSync(dir, { recursive: true, force: true }))
  return { url: `http://127.0.0.1:${port}`, port, logs, process: child, stop }
}
