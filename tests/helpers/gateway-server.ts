/**
 * Starts the gateway test build (`node .output-test/server/index.mjs`, or GATEWAY_OUTPUT_DIR) as a child
 * process with its own GATEWAY_CONFIG file; resolves once it listens (on its "Listening on" line).
 * The Chromium suite (tests/e2e) calls it directly; the gateway route tests through
 * tests/helpers/nuxt-gateway.ts, which gives them @nuxt/test-utils' context and fetch.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GATEWAY_TEST_BUILD } from './build'
import { untilListening } from './child-server'
import { countStart } from './server-starts'

/** The gateway test build's entry (tests/helpers/build.ts: .output-test, or GATEWAY_OUTPUT_DIR). */
export const gatewayEntry = () => join(GATEWAY_TEST_BUILD.output, 'server', 'index.mjs')

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
  /** another built app's server entry (the example app that extends the gateway); default the gateway's */
  entry?: string
  env?: Record<string, string>
}

/** Runs the built gateway; resolves once it listens on 127.0.0.1. */
export async function startGateway(options: GatewayStartOptions = {}): Promise<GatewayServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'))
  const configPath = join(dir, 'gateway.json')
  writeFileSync(configPath, JSON.stringify(options.config ?? {}))
  countStart('gateway')
  const child = spawn(process.execPath, [options.entry ?? gatewayEntry()], {
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
