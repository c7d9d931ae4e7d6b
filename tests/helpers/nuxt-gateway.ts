/**
 * The gateway server-route tests' harness: @nuxt/test-utils/e2e `setup()` gives the file its test
 * context (its `$fetch`/`fetch` reach the gateway), and the gateway test build (`.output-test`,
 * built once by tests/helpers/build-gateway.ts) runs as a child process started here, in a
 * `beforeAll` registered after the file's own (before hooks run in the order they are registered),
 * so its config can name the IAM and providers the file starts first.
 *
 * Why not test-utils' own server start: it waits for the port in 500 ms polls and then renders `/`
 * before it calls the server ready, about a second per start; the shared runner
 * (startGateway, scripts/lib/run-server.ts) resolves on the server's "Listening on" line.
 */
import { setup, useTestContext } from '@nuxt/test-utils/e2e'
import { afterAll, beforeAll } from 'vitest'
import { ROOT } from './build'
import { startGateway, type GatewayServer } from './gateway-server'

export type GatewayConfig = Record<string, unknown>

export interface GatewayOptions {
  /** the GATEWAY_CONFIG content, read when the file's hooks run (after the `beforeAll`s registered before this call) */
  config: () => GatewayConfig
  env?: Record<string, string>
  /** 0 / absent: any free port */
  port?: number
}

export interface TestGateway {
  /** http://127.0.0.1:<port>, no trailing slash */
  readonly url: string
  /** what the gateway printed since its last start, one entry per line */
  readonly logs: string[]
  /** stops the running gateway and starts it again with another config (and env): the file's other scenarios */
  restart(config: GatewayConfig, env?: Record<string, string>): Promise<void>
}

const START_TIMEOUT_MS = 180_000

/** Call at the top level of a test file, after the `beforeAll` that starts what `config()` points at. */
export async function setupGateway(options: GatewayOptions): Promise<TestGateway> {
  // NODE_ENV stays the runner's (test-utils would pass production): the gateway's dev profile, like
  // the IAM's; CONSOLA_LEVEL is the one test-utils gives the servers it starts
  const env = { NODE_ENV: process.env.NODE_ENV ?? 'test', CONSOLA_LEVEL: '1', ...options.env }
  await setup({ rootDir: ROOT, build: false, server: false, setupTimeout: START_TIMEOUT_MS })
  // test-utils sets its context around each test only; hooks and helpers reach it through this one
  const ctx = useTestContext()
  let running: GatewayServer | undefined
  const start = async (config: GatewayConfig, extraEnv: Record<string, string> = {}) => {
    const previous = running
    running = undefined
    await previous?.stop()
    running = await startGateway({ config, port: options.port, env: { ...env, ...extraEnv } })
    ctx.url = `${running.url}/`
    ctx.serverLogs = running.logs
  }
  beforeAll(() => start(options.config()), START_TIMEOUT_MS)
  afterAll(() => running?.stop())
  return {
    get url() {
      return (ctx.url ?? '').replace(/\/$/, '')
    },
    get logs() {
      return running?.logs ?? []
    },
    restart: start,
  }
}
